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
        for (std::size_t i = j + 1; i < n; ++i) {
            double value = a[i * stride + j];
            for (std::size_t k = 0; k < j; ++k) value -= a[i * stride + k] * a[j * stride + k];
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
