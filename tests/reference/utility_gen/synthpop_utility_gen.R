# Reference statistics for tests/utility/test_synthpop_utility_gen.py: synthpop 1.9-2's own
# utility.gen.synds (R/utility.syn.r of github.com/cran/synthpop at tag 1.9-2, sourced
# unchanged; rpart 4.1.19) run in R 4.2.2 on the SD2011 fixtures of the utility vignette.
# Logistic propensity with main effects only (maxorder = 0), once with synthpop's analytic null
# (resamp.method = NULL) and once with 50 permutations (resamp.method = "perm", set.seed(1)),
# and synthpop's default CART propensity (rpart, cp = 1e-3, minbucket = 5, 50 permutations).
# income's -8 is kept as a number (no cont.na), as synthguard reads the file by default.
# Usage: Rscript synthpop_utility_gen.R /path/to/utility.syn.r /path/to/shared/data/sd2011
suppressMessages(library(rpart))
args <- commandArgs(trailingOnly = TRUE)
source(args[1])
dir <- args[2]
vars <- c("sex", "income", "age", "edu", "socprof", "trust", "height", "weight", "smoke", "region")
ods <- read.csv(file.path(dir, "SD2011.csv"), stringsAsFactors = TRUE)[, vars]
runs <- list(logit_analytic = list(method = "logit", resamp = NULL),
             logit_perm = list(method = "logit", resamp = "perm"),
             cart_perm = list(method = "cart", resamp = "perm"))
out <- list()
for (fx in c("para", "cart")) {
  syn <- read.csv(file.path(dir, "synthpop_fixtures", paste0("utility_ods_syn_", fx, "_seed34567.csv")),
                  stringsAsFactors = TRUE)
  for (v in vars) if (is.factor(ods[[v]])) syn[[v]] <- factor(as.character(syn[[v]]), levels = levels(ods[[v]]))
  cna <- as.list(rep(NA, length(vars))); names(cna) <- vars
  obj <- list(syn = syn, m = 1, strata.syn = NULL, method = rep("cart", length(vars)), cont.na = cna)
  names(obj$method) <- vars
  class(obj) <- "synds"
  for (r in names(runs)) {
    set.seed(1)
    u <- utility.gen.synds(obj, ods, method = runs[[r]]$method, maxorder = 0,
                           resamp.method = runs[[r]]$resamp, nperms = 50, print.flag = FALSE)
    out[[length(out) + 1]] <- data.frame(fixture = fx, run = r, pMSE = u$pMSE, S_pMSE = u$S_pMSE,
                                         SPECKS = unname(u$SPECKS), PO50 = u$PO50, U = unname(u$U),
                                         df = ifelse(is.null(u$df), NA, u$df))
  }
}
write.csv(do.call(rbind, out), "synthpop_utility_gen.csv", row.names = FALSE)
