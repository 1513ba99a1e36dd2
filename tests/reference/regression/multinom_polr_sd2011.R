# Reference fits for tests/utility/test_regression_categorical.py: nnet::multinom and
# MASS::polr (the models behind synthpop's multinom.synds and polr.synds) in R 4.2.2 on
# SD2011 (the data) and synthpop's CART fixture of the utility vignette (seed 34567), the
# model edu ~ age + sex. edu's levels in their order: PRIMARY/NO EDUCATION <
# VOCATIONAL/GRAMMAR < SECONDARY < POST-SECONDARY OR HIGHER; records with a missing edu dropped.
# The script writes each coefficient's estimate and standard error (multinom: per level
# against the first; polr: the slopes) for both files.
# Usage: Rscript multinom_polr_sd2011.R /path/to/shared/data/sd2011 out.csv
suppressMessages({library(nnet); library(MASS)})
dir <- commandArgs(trailingOnly = TRUE)[1]
levs <- c("PRIMARY/NO EDUCATION", "VOCATIONAL/GRAMMAR", "SECONDARY", "POST-SECONDARY OR HIGHER")
prep <- function(d) {
  d <- d[!is.na(d$edu), c("edu", "age", "sex")]
  d$edu <- factor(d$edu, levels = levs)
  d$sex <- factor(d$sex, levels = c("FEMALE", "MALE"))
  d
}
files <- list(conf = prep(read.csv(file.path(dir, "SD2011.csv"))),
              syn = prep(read.csv(file.path(dir, "synthpop_fixtures", "utility_ods_syn_cart_seed34567.csv"))))
rows <- list()
for (f in names(files)) {
  d <- files[[f]]
  m <- multinom(edu ~ age + sex, data = d, trace = FALSE, maxit = 1000, reltol = 1e-12)
  co <- coef(m); se <- summary(m)$standard.errors
  for (i in seq_len(nrow(co))) for (j in seq_len(ncol(co)))
    rows[[length(rows) + 1]] <- data.frame(file = f, model = "multinomial", level = rownames(co)[i],
                                           term = colnames(co)[j], estimate = co[i, j], se = se[i, j])
  p <- polr(edu ~ age + sex, data = d, Hess = TRUE, method = "logistic")
  ct <- coef(summary(p))
  for (t in names(coef(p)))
    rows[[length(rows) + 1]] <- data.frame(file = f, model = "ordinal", level = "", term = t,
                                           estimate = ct[t, "Value"], se = ct[t, "Std. Error"])
}
write.csv(do.call(rbind, rows), commandArgs(trailingOnly = TRUE)[2], row.names = FALSE)
