# Sequential CART synthesis of diamonds as synthpop 1.9's default syn() does it, written
# here with rpart only (synthpop is not installed on this machine): the first column is
# sampled, every later one is an rpart tree on all earlier columns with syn.cart's defaults
# (minbucket = 5, cp = 1e-8; rpart's minsplit = 3 * minbucket, maxsurrogate 5; xval = 0 skips
# the cross-validation, which does not change the tree), a numeric
# value is a donor drawn from the leaf the synthetic predictors reach, a category a draw
# from the leaf's class shares. Used by benchmarks/peers_quality.py's note on seed spread.
# Run: Rscript benchmarks/rpart_sequential_cart.R SEED OUT.csv   (about 4 minutes per seed)

library(rpart)
args <- commandArgs(TRUE); out_file <- args[2]
seed <- as.integer(args[1]); surr <- 5L
shared <- Sys.getenv("SYNTHGUARD_SHARED_DATA", "../shared/data")
d <- read.csv(file.path(shared, "diamonds", "diamonds.csv"), stringsAsFactors = TRUE)
set.seed(seed)
n <- nrow(d)
s <- data.frame(carat = sample(d$carat, n, replace=TRUE))
vars <- names(d)
for (k in 2:length(vars)) {
  v <- vars[k]; pre <- vars[1:(k-1)]
  dat <- d[, c(v, pre)]; names(dat)[1] <- "y"
  xp <- s[, pre, drop=FALSE]
  ctl <- rpart.control(minbucket=5, cp=1e-8, maxsurrogate=surr, xval=0)
  if (is.factor(d[[v]])) {
    fit <- rpart(y ~ ., data=dat, method="class", control=ctl)
    pr <- predict(fit, newdata=xp)
    cs <- t(apply(pr, 1, cumsum)); u <- runif(n)
    idx <- rowSums(cs < u) + 1
    s[[v]] <- factor(colnames(pr)[pmin(idx, ncol(pr))], levels=levels(d[[v]]))
  } else {
    fit <- rpart(y ~ ., data=dat, method="anova", control=ctl)
    leaf <- fit$where
    fit$frame$yval <- seq_len(nrow(fit$frame))
    node <- predict(fit, newdata=xp)
    donors <- split(d[[v]], leaf)
    out <- numeric(n)
    for (j in unique(node)) {
      key <- as.character(j)
      if (!key %in% names(donors)) stop("not a leaf")
      dd <- donors[[key]]; w <- which(node == j)
      out[w] <- dd[sample.int(length(dd), length(w), replace=TRUE)]
    }
    s[[v]] <- out
  }
}
write.csv(s, out_file, row.names = FALSE)
