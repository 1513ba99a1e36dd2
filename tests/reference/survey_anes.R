# Reference numbers for synthguard.utility.domain_estimates: R survey's design-based domain
# estimates on ANES 2020 (../shared/data/anes/). Run from the repository root:
#   Rscript tests/reference/survey_anes.R ../shared/data/anes/anes_2020_srvyrexploR.csv
# writes tests/reference/survey_anes.json. Made with R 4.x and survey 4.1-1 (Debian packages).
suppressMessages(library(survey))
args <- commandArgs(trailingOnly = TRUE)
path <- if (length(args)) args[1] else "../shared/data/anes/anes_2020_srvyrexploR.csv"
anes <- read.csv(path, stringsAsFactors = FALSE, na.strings = "")
designs <- list(
  full = svydesign(ids = ~VarUnit, strata = ~Stratum, weights = ~Weight, nest = TRUE, data = anes),
  strata_only = svydesign(ids = ~1, strata = ~Stratum, weights = ~Weight, data = anes),
  weights_only = svydesign(ids = ~1, weights = ~Weight, data = anes)
)
out <- list()
add <- function(design, by, variable, statistic, res, level_names = NULL) {
  est <- coef(res)
  se <- as.vector(as.matrix(SE(res)))  # svyby quantiles: a domain x quantile matrix
  # svyby's confint of quantiles is coef +- z se; the Woodruff interval is kept in se
  ci <- if (statistic == "quantile") matrix(NA, length(est), 2) else confint(res)
  for (j in seq_along(est)) {
    out[[length(out) + 1]] <<- list(
      design = design, by = by, variable = variable, statistic = statistic,
      key = names(est)[j], estimate = unname(est[j]), se = unname(se[j]),
      lower = unname(ci[j, 1]), upper = unname(ci[j, 2]))
  }
}
for (dn in names(designs)) {
  des <- designs[[dn]]
  add(dn, "Gender", "Age", "mean", svyby(~Age, ~Gender, des, svymean, na.rm = TRUE))
  add(dn, "Gender", "Age", "total", svyby(~Age, ~Gender, des, svytotal, na.rm = TRUE))
  add(dn, "Gender+Education", "Age", "mean",
      svyby(~Age, ~Gender + Education, des, svymean, na.rm = TRUE))
  add(dn, "Gender", "VotedPres2020_selection", "proportion",
      svyby(~VotedPres2020_selection, ~Gender, des, svymean, na.rm = TRUE))
  add(dn, "RaceEth", "Income7", "proportion",
      svyby(~Income7, ~RaceEth, des, svymean, na.rm = TRUE))
}
q <- svyby(~Age, ~Gender, designs$full, svyquantile, quantiles = c(0.25, 0.5, 0.9),
           na.rm = TRUE, ci = TRUE, keep.var = TRUE)
add("full", "Gender", "Age", "quantile", q)
writeLines(jsonlite::toJSON(list(
  source = paste("R", getRversion(), "survey", packageVersion("survey"),
                 "on ANES 2020 (srvyrexploR); design ids=~VarUnit, strata=~Stratum,",
                 "weights=~Weight, nest=TRUE"),
  estimates = out), auto_unbox = TRUE, digits = NA, pretty = TRUE),
  "tests/reference/survey_anes.json")
