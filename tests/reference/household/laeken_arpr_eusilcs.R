# The at-risk-of-poverty rate of simPop's eusilcS by laeken (Alfons & Templ 2013), for the test
# of synthguard.utility.at_risk_of_poverty. Person income: the sum of the py*n columns (missing
# as 0); household income: the sum over members; OECD-modified scale: laeken's eqSS; rate:
# laeken's arpr with the personal weight rb050. Run from the repository root with R and the
# Debian package r-cran-laeken (0.5.2):
#   Rscript tests/reference/household/laeken_arpr_eusilcs.R ../shared/data/households
# writes tests/reference/household/laeken_arpr_eusilcs.csv.
suppressMessages(library(laeken))
args <- commandArgs(trailingOnly = TRUE)
dir <- if (length(args)) args[1] else "../shared/data/households"
e <- read.csv(file.path(dir, "eusilcS.csv"))
inc <- grep("^py.*n$", names(e), value = TRUE)
e$y <- rowSums(replace(e[, inc], is.na(e[, inc]), 0))
hy <- tapply(e$y, e$db030, sum)
e$eq <- hy[as.character(e$db030)] / eqSS("db030", "age", data = e)
a <- arpr("eq", weights = "rb050", data = e)
out <- data.frame(
  measure = c("arpr_percent", "threshold", "weighted_median"),
  value = sprintf("%.17g", c(a$value, a$threshold, weightedMedian(e$eq, e$rb050))),
  source = paste("R", getRversion(), "laeken", packageVersion("laeken")))
write.csv(out, "tests/reference/household/laeken_arpr_eusilcs.csv", row.names = FALSE)
