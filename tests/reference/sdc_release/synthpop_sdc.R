# Reference counts for tests/synthesis/test_post_sdc.py: synthpop 1.9-2's own sdc()
# (R/IO.r of github.com/cran/synthpop at tag 1.9-2, sourced unchanged) run in R 4.2.2 on the
# SD2011 CART fixture of the utility vignette (seed 34567). Keys: the ten fixture columns.
# Three cases, each sdc() on the fixture as released:
#   recode:      bottom/top coding of age (top 80) and income (bottom 0, top 5000, -8 excluded)
#   replicated:  rm.replicated.uniques = TRUE
#   in_orig:     rm.uniques.in.orig = TRUE
# (Recoding and removal are run separately: synthpop compares records by the text of
# as.matrix(), which pads numbers to their column's width, so after top coding shrinks a
# column's width its values stop matching the data's; synthguard compares values.)
# The script writes, per case, the recode counts, the records removed (1-based row numbers of
# the fixture), the rows left and the column sums of age and income.
# Usage: Rscript synthpop_sdc.R /path/to/IO.r /path/to/shared/data/sd2011 out.csv
args <- commandArgs(trailingOnly = TRUE)
source(args[1])
dir <- args[2]
vars <- c("sex", "income", "age", "edu", "socprof", "trust", "height", "weight", "smoke", "region")
ods <- read.csv(file.path(dir, "SD2011.csv"), stringsAsFactors = TRUE)[, vars]
syn <- read.csv(file.path(dir, "synthpop_fixtures", "utility_ods_syn_cart_seed34567.csv"),
                stringsAsFactors = TRUE)[, vars]
mk <- function(s) {
  obj <- list(syn = s, m = 1, k = nrow(s), n = nrow(ods), cont.na = NULL)
  class(obj) <- "synds"
  obj
}
row <- function(case, s, removed, counts = c(NA, NA, NA)) {
  data.frame(case = case, age_top = counts[1], income_bottom = counts[2], income_top = counts[3],
             removed = sum(removed), removed_rows = paste(which(removed), collapse = " "),
             n_out = nrow(s$syn), age_sum = sum(as.numeric(s$syn$age), na.rm = TRUE),
             income_sum = sum(as.numeric(s$syn$income), na.rm = TRUE))
}
printed <- capture.output(s1 <- sdc(mk(syn), ods, keys = vars, recode.vars = c("age", "income"),
  bottom.top.coding = list(c(NA, 80), c(0, 5000)), recode.exclude = list(NA, -8)))
counts <- as.integer(regmatches(paste(printed, collapse = " "),
                                gregexpr("[0-9]+", paste(printed, collapse = " ")))[[1]])
printed2 <- capture.output(s2 <- sdc(mk(syn), ods, keys = vars, rm.replicated.uniques = TRUE))
printed3 <- capture.output(s3 <- sdc(mk(syn), ods, keys = vars, rm.uniques.in.orig = TRUE))
du <- replicated.uniques(mk(syn), ods, vars)
out <- rbind(row("recode", s1, rep(FALSE, nrow(syn)), counts[c(2, 3, 4)]),
             row("replicated", s2, du$repU.rm),
             row("in_orig", s3, du$synU.rm))
write.csv(out, args[3], row.names = FALSE)
