# Reference statistics for tests/utility/test_tab.py: synthpop 1.9-2's own utility.tab.synds
# (R/utility.syn.r of github.com/cran/synthpop at tag 1.9-2, sourced unchanged) run in R 4.2.2
# on the SD2011 fixtures. Only classInt::classIntervals (not installed here) is replaced by its
# 'quantile' and 'equal' styles: breaks quantile(x, seq(0, 1, 1/n)) (type 7) and
# seq(min, max, length = n + 1).
# Usage: Rscript synthpop_utility_tab.R /path/to/utility.syn.r /path/to/shared/data/sd2011
args <- commandArgs(trailingOnly = TRUE)
classIntervals <- function(var, n, style = "quantile", ...) {
  if (style == "quantile") brks <- quantile(var, probs = seq(0, 1, 1 / n), names = FALSE)
  else brks <- seq(min(var), max(var), length.out = n + 1)
  list(brks = brks)
}
source(args[1])
dir <- args[2]
vars <- c("sex", "income", "age", "edu", "socprof", "trust", "height", "weight", "smoke", "region")
ods <- read.csv(file.path(dir, "SD2011.csv"), stringsAsFactors = TRUE)[, vars]
stats <- c("VW", "FT", "JSD", "SPECKS", "WMabsDD", "U", "G", "pMSE", "PO50", "MabsDD", "dBhatt",
           "S_VW", "S_FT", "S_JSD", "S_WMabsDD", "S_G", "S_pMSE", "df", "dfG")
out <- list()
for (fx in c("para", "cart")) {
  syn <- read.csv(file.path(dir, "synthpop_fixtures", paste0("utility_ods_syn_", fx, "_seed34567.csv")),
                  stringsAsFactors = TRUE)
  for (v in vars) if (is.factor(ods[[v]])) syn[[v]] <- factor(as.character(syn[[v]]), levels = levels(ods[[v]]))
  cna <- as.list(rep(NA, length(vars))); names(cna) <- vars; cna$income <- c(NA, -8)
  obj <- list(syn = syn, m = 1, cont.na = cna); class(obj) <- "synds"
  sets <- c(as.list(vars), combn(vars, 2, simplify = FALSE), combn(vars[1:6], 3, simplify = FALSE))
  for (s in sets) {
    u <- utility.tab.synds(obj, ods, vars = s, print.flag = FALSE)
    row <- data.frame(fixture = fx, vars = paste(s, collapse = ":"))
    for (st in stats) row[[st]] <- u[[st]]
    out[[length(out) + 1]] <- row
  }
}
write.csv(do.call(rbind, out), "synthpop_utility_tab.csv", row.names = FALSE)
