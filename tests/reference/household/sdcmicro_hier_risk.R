# sdcMicro's household (hierarchical) risk on its test data, for the tests of
# synthguard.risk.individual_risk(..., household=). Run from the repository root with
# sdcMicro 5.8.0 installed (R from Debian: r-base-core and the r-cran-* packages sdcMicro
# imports; sdcMicro and prettydoc from the public snapshots cran/sdcMicro and cran/prettydoc,
# installed into a library outside the repository, e.g. R CMD INSTALL -l /tmp/rlib):
#   R_LIBS=/tmp/rlib Rscript tests/reference/household/sdcmicro_hier_risk.R ../shared/data/sdcmicro
# writes tests/reference/household/sdcmicro_hier_risk_households.csv (one row per household
# of testdata, in order of ori_hid: the household risk every member carries, per case; the
# script checks it is the same for all members) and sdcmicro_hier_risk_global.csv (the global
# figures of each case). Nothing of R or sdcMicro is committed.
suppressMessages(library(sdcMicro))
args <- commandArgs(trailingOnly = TRUE)
dir <- if (length(args)) args[1] else "../shared/data/sdcmicro"
out <- "tests/reference/household"
testdata <- read.csv(file.path(dir, "testdata.csv"))
keys5 <- c("urbrur", "roof", "walls", "water", "sex")  # the example of ?measure_risk
keys7 <- c("urbrur", "roof", "walls", "water", "electcon", "relat", "sex")
cases <- list(
  list(name = "keys5_weighted", keys = keys5, w = "sampling_weight", fast = TRUE),
  list(name = "keys7_weighted", keys = keys7, w = "sampling_weight", fast = TRUE),
  list(name = "keys7_weighted_cpp", keys = keys7, w = "sampling_weight", fast = FALSE),
  list(name = "keys5_unweighted", keys = keys5, w = NULL, fast = TRUE)
)
hids <- sort(unique(testdata$ori_hid))
records <- data.frame(ori_hid = hids)
global <- NULL
for (cs in cases) {
  r <- measure_risk(testdata, keyVars = cs$keys, w = cs$w, hid = "ori_hid",
                    fast_hier = cs$fast)
  hr <- unname(r$Res[, "hier_risk"])
  per_hh <- tapply(hr, testdata$ori_hid, function(x) { stopifnot(all(x == x[1])); x[1] })
  records[[cs$name]] <- sprintf("%.17g", per_hh[as.character(hids)])
  global <- rbind(global, data.frame(
    case = cs$name, keys = paste(cs$keys, collapse = " "),
    weights = if (is.null(cs$w)) "" else cs$w, fast_hier = cs$fast,
    global_risk_ER = sprintf("%.17g", r$global_risk_ER),
    hier_risk_ER = sprintf("%.17g", r$hier_risk_ER),
    hier_risk = sprintf("%.17g", r$hier_risk), hier_risk_pct = sprintf("%.17g", r$hier_risk_pct),
    source = paste("R", getRversion(), "sdcMicro", packageVersion("sdcMicro"))))
}
write.csv(records, file.path(out, "sdcmicro_hier_risk_households.csv"), row.names = FALSE,
          quote = FALSE)
write.csv(global, file.path(out, "sdcmicro_hier_risk_global.csv"), row.names = FALSE)
