# Outside check only (not part of dlsim; run.sh starts it): solves each FTF allocation that dlsim's hooked build
# sends (hook.patch) as Gavel's finish_time_fairness.py (076074c) states it and cvxpy hands it to ECOS:
#   minimise s  s.t.  s >= age_m/D_m + (R_m/D_m)·tau_m,   (a_m + tau_m, a_m - tau_m, 2) in the 3-d second-order
#   cone (cvxpy's inv_pos: tau_m >= 1/a_m), a_m = sum_t T_mt·x_mt,  x >= 0,  sum_m g_m·x_mt <= W_t,
#   sum_t x_mt <= 1,   D_m = age_m + R_m/theta_iso_m;   one job: minimise (R_1/D_1)·tau_1 (no epigraph).
# ECOS's default settings, as cvxpy passes none. Reads "M T", the capacities, then per job
# "gang age remaining theta_iso T_1..T_T"; writes x (job-major, clipped to [0, 1] as Gavel does) on one line.
suppressMessages({library(ECOSolveR); library(Matrix)})
args <- commandArgs(TRUE)
inp <- fifo(args[1], open = "r", blocking = TRUE)
out <- fifo(args[2], open = "w", blocking = TRUE)
logf <- file(args[3], open = "w")
calls <- 0
repeat {
  hdr <- readLines(inp, n = 1)
  if (length(hdr) == 0) break
  v <- as.numeric(strsplit(trimws(hdr), " +")[[1]]); M <- v[1]; n <- v[2]
  W <- as.numeric(strsplit(trimws(readLines(inp, n = 1)), " +")[[1]])
  J <- matrix(as.numeric(unlist(strsplit(trimws(readLines(inp, n = M)), " +"))), nrow = M, byrow = TRUE)
  g <- J[, 1]; age <- J[, 2]; R <- J[, 3]; iso <- J[, 4]; thr <- J[, 5:(4 + n), drop = FALSE]
  nx <- M * n; s_col <- nx + M + 1   # 1-based: x 1..nx, tau nx+1..nx+M, s nx+M+1
  use_s <- M > 1
  N <- nx + M + (if (use_s) 1 else 0)
  xi <- function(i, t) (i - 1) * n + t
  I <- c(); Jc <- c(); X <- c(); h <- c(); row <- 0
  # x >= 0
  ii <- seq_len(nx); I <- c(I, ii); Jc <- c(Jc, ii); X <- c(X, rep(-1, nx)); h <- c(h, rep(0, nx)); row <- nx
  # capacity
  for (t in 1:n) { row <- row + 1; I <- c(I, rep(row, M)); Jc <- c(Jc, xi(1:M, t)); X <- c(X, g); h <- c(h, W[t]) }
  # sum_t x <= 1
  for (i in 1:M) { row <- row + 1; I <- c(I, rep(row, n)); Jc <- c(Jc, xi(i, 1:n)); X <- c(X, rep(1, n)); h <- c(h, 1) }
  Tden <- age + ifelse(iso > 0, R / iso, 0)
  cvec <- rep(0, N)
  if (use_s) {
    for (i in 1:M) { row <- row + 1
      I <- c(I, row, row); Jc <- c(Jc, nx + i, s_col); X <- c(X, R[i] / Tden[i], -1); h <- c(h, -age[i] / Tden[i]) }
    cvec[s_col] <- 1
  } else cvec[nx + 1] <- R[1] / Tden[1]
  l <- row
  for (i in 1:M) {
    row <- row + 1; I <- c(I, rep(row, n), row); Jc <- c(Jc, xi(i, 1:n), nx + i); X <- c(X, -thr[i, ], -1); h <- c(h, 0)
    row <- row + 1; I <- c(I, rep(row, n), row); Jc <- c(Jc, xi(i, 1:n), nx + i); X <- c(X, -thr[i, ], 1); h <- c(h, 0)
    row <- row + 1; h <- c(h, 2)
  }
  G <- sparseMatrix(i = I, j = Jc, x = X, dims = c(row, N))
  r <- ECOS_csolve(c = cvec, G = G, h = h, dims = list(l = as.integer(l), q = as.integer(rep(3, M)), e = 0L))
  x <- pmin(pmax(r$x[1:nx], 0), 1)
  calls <- calls + 1
  writeLines(sprintf("%d M=%d exit=%d iter=%d obj=%.10g", calls, M, r$retcodes[["exitFlag"]], r$retcodes[["iter"]],
                     if (use_s) r$x[s_col] else NA), logf); flush(logf)
  writeLines(paste(sprintf("%.17g", x), collapse = " "), out); flush(out)
}
