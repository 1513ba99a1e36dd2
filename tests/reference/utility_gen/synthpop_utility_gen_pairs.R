# Reference statistics for tests/utility/test_pmse_pairs.py: synthpop 1.9-2's own
# utility.gen.synds (R/utility.syn.r of github.com/cran/synthpop at tag 1.9-2, sourced
# unchanged) in R 4.2.2 with resamp.method = "pairs" (the null pMSE from the 10 pairs of the
# 5 implicates) and a main-effects logistic propensity (maxorder = 0), on the five-implicate
# SD2011 release of the disclosure vignette (seed 8564). One row per implicate.
# Usage: Rscript synthpop_utility_gen_pairs.R /path/to/utility.syn.r /path/to/shared/data/sd2011
suppressMessages(library(rpart))
args <- commandArgs(trailingOnly = TRUE)
source(args[1])
dir <- args[2]
vars <- c("sex", "age", "region", "placesize", "depress", "income", "ls", "marital", "workab")
ods <- read.csv(file.path(dir, "SD2011.csv"), stringsAsFactors = TRUE)[, vars]
syn <- lapply(1:5, function(i) {
  s <- read.csv(file.path(dir, "synthpop_fixtures", paste0("disclosure_ods_syn_s5_seed8564_m", i, ".csv")),
                stringsAsFactors = TRUE)[, vars]
  for (v in vars) if (is.factor(ods[[v]])) s[[v]] <- factor(as.character(s[[v]]), levels = levels(ods[[v]]))
  s
})
cna <- as.list(rep(NA, length(vars))); names(cna) <- vars
obj <- list(syn = syn, m = 5, strata.syn = NULL, method = rep("cart", length(vars)), cont.na = cna)
names(obj$method) <- vars
class(obj) <- "synds"
u <- utility.gen.synds(obj, ods, method = "logit", maxorder = 0, resamp.method = "pairs",
                       print.flag = FALSE)
write.csv(data.frame(implicate = 1:5, pMSE = sprintf("%.15g", u$pMSE),
                     S_pMSE = sprintf("%.15g", u$S_pMSE)),
          "synthpop_utility_gen_pairs.csv", row.names = FALSE)
