package main

import (
	"cmp"
	"fmt"
	"slices"
	"time"
)

// sample is a set of measured durations.
type sample []time.Duration

// quantile returns the q-quantile by nearest rank (q=0.5 the median, 0.99
// the p99; with fewer than 100 values the p99 is the largest).
func (s sample) quantile(q float64) time.Duration { return nearestRank(s, q) }

// nearestRank is the q-quantile of values by nearest rank, for any figure
// (durations, counts); zero for none.
func nearestRank[T cmp.Ordered](values []T, q float64) T {
	if len(values) == 0 {
		var zero T
		return zero
	}
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	i := int(q*float64(len(sorted))+0.999999) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

func (s sample) p50() time.Duration { return s.quantile(0.5) }
func (s sample) p99() time.Duration { return s.quantile(0.99) }

// String formats the median with the p99 and the sample size.
func (s sample) String() string {
	if len(s) == 0 {
		return "—"
	}
	return fmt.Sprintf("%s (p99 %s, n=%d)", ms(s.p50()), ms(s.p99()), len(s))
}

// withTail formats the median with the p90 and p99 and the sample size: a
// tail of waiting requests shows in the p90 before the p99.
func (s sample) withTail() string {
	if len(s) == 0 {
		return "—"
	}
	return fmt.Sprintf("%s (p90 %s, p99 %s, n=%d)", ms(s.p50()), ms(s.quantile(0.9)), ms(s.p99()), len(s))
}

// ms formats a duration in milliseconds with a precision that suits it.
func ms(d time.Duration) string {
	v := float64(d) / float64(time.Millisecond)
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f ms", v)
	case v >= 10:
		return fmt.Sprintf("%.1f ms", v)
	default:
		return fmt.Sprintf("%.2f ms", v)
	}
}

// ratio formats a/b as "1.23×".
func ratio(a, b float64) string {
	if b == 0 {
		return "—"
	}
	return fmt.Sprintf("%.2f×", a/b)
}

// mb formats a byte count in MB (10^6 bytes), the unit of the goals.
func mb(n int64) string { return fmt.Sprintf("%.2f MB", float64(n)/1e6) }

// us formats a duration in microseconds.
func us(d time.Duration) string { return fmt.Sprintf("%.0f µs", float64(d)/float64(time.Microsecond)) }

// kb formats a byte count in KB (10^3 bytes).
func kb(n int64) string { return fmt.Sprintf("%.1f KB", float64(n)/1e3) }
