#pragma once
// Dense Cholesky on a row-major slot, for the analytic centres' small SPD systems (analytic_centre, row_centre).
#include <cmath>
#include <cstddef>

namespace dlsim {

// A = L·L^T in place for the n×n matrix in the leading corner of a row-major slot with row length `stride`
// (lower triangle read and overwritten). False when A is not numerically positive definite.
inline bool cholesky_factor(double* a, std::size_t n, std::size_t stride) {
    for (std::size_t j = 0; j < n; ++j) {
        double diagonal = a[j * stride + j];
        for (std::size_t k = 0; k < j; ++k) diagonal -= a[j * stride + k] * a[j * stride + k];
        if (!(diagonal > 0)) return false;
        const double pivot = std::sqrt(diagonal);
        a[j * stride + j] = pivot;
        const double* row_j = a + j * stride;
        std::size_t i = j + 1;
        // Four rows at a time: four independent sums, each in the same order as one row alone (same bits),
        // so the adds' latency overlaps instead of chaining.
        for (; i + 4 <= n; i += 4) {
            double* r0 = a + i * stride;
            double* r1 = r0 + stride;
            double* r2 = r1 + stride;
            double* r3 = r2 + stride;
            double v0 = r0[j], v1 = r1[j], v2 = r2[j], v3 = r3[j];
            for (std::size_t k = 0; k < j; ++k) {
                const double c = row_j[k];
                v0 -= r0[k] * c;
                v1 -= r1[k] * c;
                v2 -= r2[k] * c;
                v3 -= r3[k] * c;
            }
            r0[j] = v0 / pivot;
            r1[j] = v1 / pivot;
            r2[j] = v2 / pivot;
            r3[j] = v3 / pivot;
        }
        for (; i < n; ++i) {
            double value = a[i * stride + j];
            for (std::size_t k = 0; k < j; ++k) value -= a[i * stride + k] * row_j[k];
            a[i * stride + j] = value / pivot;
        }
    }
    return true;
}

// b ← (L·L^T)^{-1}·b, with L from cholesky_factor.
inline void cholesky_solve(const double* l, std::size_t n, std::size_t stride, double* b) {
    for (std::size_t i = 0; i < n; ++i) {
        double value = b[i];
        for (std::size_t k = 0; k < i; ++k) value -= l[i * stride + k] * b[k];
        b[i] = value / l[i * stride + i];
    }
    for (std::size_t i = n; i-- > 0;) {
        double value = b[i];
        for (std::size_t k = i + 1; k < n; ++k) value -= l[k * stride + i] * b[k];
        b[i] = value / l[i * stride + i];
    }
}

}  // namespace dlsim
