# Reference leaves of rpart 4.1.19 (R 4.2.2) on tiny.csv, for tests/synthesis/methods/test_cart_tree.py.
# g: unordered factor, o: ordered factor (o0 < o1 < o2 < o3), x numeric.
d <- read.csv("tiny.csv")
d$g <- factor(d$g)
d$o <- factor(d$o, levels = c("o0", "o1", "o2", "o3"), ordered = TRUE)
out <- data.frame(row = seq_len(nrow(d)))
for (cp in c(0, 0.01, 0.05)) {
  ctl <- rpart::rpart.control(cp = cp, minbucket = 5, xval = 0, maxcompete = 0, maxsurrogate = 0)
  f <- rpart::rpart(y ~ x + g + o, data = d, method = "anova", control = ctl)
  out[[paste0("anova_cp", cp)]] <- f$where
  h <- rpart::rpart(factor(b) ~ x + g + o, data = d, method = "class", control = ctl)
  out[[paste0("class_cp", cp)]] <- h$where
}
write.csv(out, "rpart_tiny_leaves.csv", row.names = FALSE)
