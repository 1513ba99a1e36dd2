# One task of benchmarks/vs_synthpop.py, timed in R's synthpop (the peer figures of
# benchmarks/reference/synthpop.json). Each task runs as its own process, so the driver measures
# the whole process (R start-up, loading synthpop, reading the CSV, the call); this script adds
# the call's own seconds on its last line ("call_s <elapsed> <cpu>").
#
#   R_LIBS_USER=.rlib Rscript benchmarks/reference/synthpop_bench.R TASK DATA_DIR
#
# TASK: syn_adult | syn_diamonds | gen_logit | gen_cart | tables | disclosure.
# DATA_DIR: /work/shared/data (synthpop_releases/ and diamonds/ below it).
# Inputs: Adult complete cases (30,162 x 15) and synthpop's own default release of it
# (synthpop_releases/adult_syn_default_seed1.csv, syn(d, seed = 1, m = 1)); diamonds.
# Every call keeps synthpop's defaults except the ones written out: print.flag = FALSE, m = 1,
# seed 1; utility.gen with main effects only (maxorder = 0, synthguard's logistic model) and
# 50 permutations (resamp.method = "perm", nperms = 50); utility.tables of all two-way tables;
# disclosure with keys age, sex, race, marital_status and target income.
suppressPackageStartupMessages(library(synthpop))
args <- commandArgs(trailingOnly = TRUE)
task <- args[1]
dir <- args[2]
rel <- file.path(dir, "synthpop_releases")
read <- function(f) read.csv(f, stringsAsFactors = TRUE)
t0 <- proc.time()
if (task %in% c("syn_adult", "syn_diamonds")) {
  f <- if (task == "syn_adult") file.path(rel, "adult_complete_cases.csv") else
    file.path(dir, "diamonds", "diamonds.csv")
  d <- read(f)
  t0 <- proc.time()
  s <- syn(d, seed = 1, m = 1, print.flag = FALSE)
  cat("rows", nrow(s$syn), "\n")
} else {
  ods <- read(file.path(rel, "adult_complete_cases.csv"))
  sds <- read(file.path(rel, "adult_syn_default_seed1.csv"))
  for (v in names(ods)) if (is.factor(ods[[v]]))
    sds[[v]] <- factor(as.character(sds[[v]]), levels = levels(ods[[v]]))
  t0 <- proc.time()
  set.seed(1)
  if (task == "gen_logit") {
    u <- utility.gen(sds, ods, method = "logit", maxorder = 0, resamp.method = "perm",
                     nperms = 50, print.flag = FALSE)
    cat("pMSE", format(u$pMSE, digits = 10), "S_pMSE", format(u$S_pMSE, digits = 10), "\n")
  } else if (task == "gen_cart") {
    u <- utility.gen(sds, ods, method = "cart", resamp.method = "perm", nperms = 50,
                     print.flag = FALSE)
    cat("pMSE", format(u$pMSE, digits = 10), "S_pMSE", format(u$S_pMSE, digits = 10), "\n")
  } else if (task == "tables") {
    u <- utility.tables(sds, ods, tables = "twoway", print.flag = FALSE)
    cat("tables", nrow(u$tabs), "\n")
  } else if (task == "disclosure") {
    r <- disclosure(sds, ods, keys = c("age", "sex", "race", "marital_status"),
                    target = "income", print.flag = FALSE)
    cat("disclosure done\n")
  } else stop("unknown task ", task)
}
t1 <- proc.time() - t0
cat("call_s", unname(t1["elapsed"]), unname(t1["user.self"] + t1["sys.self"]), "\n")
