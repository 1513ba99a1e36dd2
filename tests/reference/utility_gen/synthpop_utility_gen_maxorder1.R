# Reference statistics for tests/utility/test_synthpop_utility_gen.py: synthpop 1.9-2's own
# utility.gen.synds (R/utility.syn.r of github.com/cran/synthpop at tag 1.9-2, sourced
# unchanged) run in R 4.2.2 on the SD2011 fixtures of the utility vignette, with a logistic
# propensity model of all two-way interactions (maxorder = 1, glm's t ~ .^2) and synthpop's
# analytic null (resamp.method = NULL), on seven of the ten variables (vars = mvars). Same data handling as synthpop_utility_gen.R.
# Usage: Rscript synthpop_utility_gen_maxorder1.R /path/to/utility.syn.r /path/to/shared/data/sd2011
suppressMessages(library(rpart))
args <- commandArgs(trailingOnly = TRUE)
source(args[1])
dir <- args[2]
vars <- c("sex", "income", "age", "edu", "socprof", "trust", "height", "weight", "smoke", "region")
ods <- read.csv(file.path(dir, "SD2011.csv"), stringsAsFactors = TRUE)[, vars]
out <- list()
# the variables of the model: all ten give 711 parameters, over synthpop's max.params = 400
mvars <- c("sex", "age", "edu", "smoke", "height", "weight", "income")
for (fx in c("para", "cart")) {
  syn <- read.csv(file.path(dir, "synthpop_fixtures", paste0("utility_ods_syn_", fx, "_seed34567.csv")),
                  stringsAsFactors = TRUE)
  for (v in vars) if (is.factor(ods[[v]])) syn[[v]] <- factor(as.character(syn[[v]]), levels = levels(ods[[v]]))
  cna <- as.list(rep(NA, length(vars))); names(cna) <- vars
  obj <- list(syn = syn, m = 1, strata.syn = NULL, method = rep("cart", length(vars)), cont.na = cna)
  names(obj$method) <- vars
  class(obj) <- "synds"
  set.seed(1)
  u <- utility.gen.synds(obj, ods, method = "logit", maxorder = 1, resamp.method = NULL,
                         vars = mvars, print.flag = FALSE)
  out[[length(out) + 1]] <- data.frame(fixture = fx, run = "logit_maxorder1_analytic",
                                       pMSE = sprintf("%.15g", u$pMSE),
                                       S_pMSE = sprintf("%.15g", u$S_pMSE),
                                       SPECKS = unname(u$SPECKS), PO50 = u$PO50, U = unname(u$U),
                                       df = ifelse(is.null(u$df), NA, u$df))
}
write.csv(do.call(rbind, out), "synthpop_utility_gen_maxorder1.csv", row.names = FALSE)
