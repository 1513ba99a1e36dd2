# Reference check_2way tables for tests/risk/test_disclosure_check2way.py: synthpop 1.9-2's
# disclosure() (library(synthpop), R 4.2.2) on the SD2011 fixtures of the disclosure vignette
# (seed 8564; s1 one implicate, s5 five; factor levels set to the original's, so
# compare.synorig is off), keys sex, age, region, placesize, default
# thresh_2way = c(4, 80). One row per flagged (target level, key level) pair and implicate.
# Usage: R_LIBS_USER=/path/to/rlib Rscript synthpop_check_2way.R /path/to/shared/data/sd2011 out.csv
suppressMessages(library(synthpop))
args <- commandArgs(trailingOnly = TRUE)
dir <- args[1]
ods <- read.csv(file.path(dir, "SD2011.csv"), stringsAsFactors = TRUE)
ods <- ods[, c("sex", "age", "region", "placesize", "depress", "income", "ls", "marital", "workab")]
fx <- file.path(dir, "synthpop_fixtures")
rd <- function(f) {
  s <- read.csv(file.path(fx, f), stringsAsFactors = TRUE)
  for (v in names(ods)) if (is.factor(ods[[v]])) s[[v]] <- factor(as.character(s[[v]]), levels = levels(ods[[v]]))
  s[, names(ods)]
}
s1 <- rd("disclosure_ods_syn_s1_seed8564.csv")
s5 <- lapply(1:5, function(i) rd(paste0("disclosure_ods_syn_s5_seed8564_m", i, ".csv")))
keys <- c("sex", "age", "region", "placesize")
out <- NULL
runs <- list(list("s1", s1, "depress"), list("s1", s1, "workab"), list("s1", s1, "marital"),
             list("s5", s5, "workab"))
for (r in runs) {
  d <- disclosure(r[[2]], ods, keys = keys, target = r[[3]], print.flag = FALSE,
                  compare.synorig = FALSE)
  c2 <- d$check_2way
  if (is.data.frame(c2)) c2 <- list(c2)
  for (j in seq_along(c2)) {
    if (!is.data.frame(c2[[j]])) next
    x <- c2[[j]]
    out <- rbind(out, data.frame(release = r[[1]], target = r[[3]], implicate = j,
                                 target_key_levs = as.character(x$target_key_levs),
                                 npairs = x$npairs, key = x$key, key_total = x$key_total,
                                 key_target_total = x$key_target_total,
                                 PctTargetKeyLevel = sprintf("%.10f", x$PctTargetKeyLevel)))
  }
}
write.csv(out, args[2], row.names = FALSE)
