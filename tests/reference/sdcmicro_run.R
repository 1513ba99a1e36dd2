# sdcMicro's own output on its test data (../shared/data/sdcmicro/), for the tests of
# synthguard.risk (individual_risk, suda2, l_diversity). Run from the repository root with
# sdcMicro 5.8.0 installed (R from Debian: r-base-core and the r-cran-* packages sdcMicro
# imports; sdcMicro and prettydoc from the public snapshots cran/sdcMicro and cran/prettydoc,
# installed into a library outside the repository, e.g. R CMD INSTALL -l /work/rlib):
#   R_LIBS=/work/rlib Rscript tests/reference/sdcmicro_run.R ../shared/data/sdcmicro
# writes tests/reference/sdcmicro_run.json. Nothing of R or sdcMicro is committed.
suppressMessages(library(sdcMicro))
args <- commandArgs(trailingOnly = TRUE)
dir <- if (length(args)) args[1] else "../shared/data/sdcmicro"
testdata <- read.csv(file.path(dir, "testdata.csv"))
francdat <- read.csv(file.path(dir, "francdat.csv"))
keys <- c("urbrur", "roof", "walls", "water", "electcon", "relat", "sex")
out <- list(source = paste("R", getRversion(), "sdcMicro", packageVersion("sdcMicro")))

risk_case <- function(name, data, keys, w) {
  r <- measure_risk(data, keyVars = keys, w = w)
  list(name = name, keys = keys, weights = if (is.null(w)) NULL else w,
       global_risk = r$global_risk, global_risk_ER = r$global_risk_ER,
       risk = unname(r$Res[, "risk"]), fk = unname(r$Res[, "fk"]), Fk = unname(r$Res[, "Fk"]))
}
out$measure_risk <- list(
  risk_case("testdata weighted", testdata, keys, "sampling_weight"),
  risk_case("testdata unweighted", testdata, keys, NULL),
  risk_case("francdat weighted", francdat, c("Key1", "Key2", "Key3", "Key4"), "w")
)

suda_case <- function(name, data, keys) {
  s <- suda2(data, variables = keys, DisFraction = 0.01)
  list(name = name, keys = keys, score = s$score, disScore = s$disScore,
       attribute_contributions = setNames(as.list(s$attribute_contributions$contribution),
                                          as.character(s$attribute_contributions$variable)))
}
out$suda2 <- list(
  suda_case("testdata 5 keys", testdata, c("urbrur", "roof", "walls", "water", "sex")),
  suda_case("francdat", francdat, c("Key1", "Key2", "Key3", "Key4"))
)

ld <- ldiversity(testdata, keyVars = c("urbrur", "roof", "walls", "sex"), ldiv_index = "water",
                 l_recurs_c = 2)
out$ldiversity <- list(list(
  name = "testdata water", keys = c("urbrur", "roof", "walls", "sex"), sensitive = "water",
  c = 2, distinct = unname(ld[, "water_Distinct_Ldiversity"]),
  entropy = unname(ld[, "water_Entropy_Ldiversity"]),
  recursive = unname(ld[, "water_Recursive_Ldiversity"])))

writeLines(jsonlite::toJSON(out, auto_unbox = TRUE, digits = NA, null = "null"),
           "tests/reference/sdcmicro_run.json")
