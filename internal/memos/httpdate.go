package memos

import (
	"strings"
	"time"
)

// The two kinds of time a wait comes in, read by hand: time.Parse and
// time.ParseDuration linked 19 KB gzip of the time package's parsing into
// the wasm for three fixed layouts and one unit; these take 3 KB (both
// measured). FuzzParseHTTPDate and FuzzParseDelay hold them against the
// standard library's readings.

// parseHTTPDate reads an HTTP date (RFC 9110 section 5.6.7) in any of its
// three forms, as the RFC's grammar writes them:
//
//	Sun, 06 Nov 1994 08:49:37 GMT   (IMF-fixdate)
//	Sunday, 06-Nov-94 08:49:37 GMT  (obsolete RFC 850 form)
//	Sun Nov  6 08:49:37 1994        (ANSI C's asctime)
//
// The day's name is checked for its spelling and otherwise ignored, as
// time.Parse does; a two-digit year is 1969–2068, as time.Parse reads it.
func parseHTTPDate(s string) (time.Time, bool) {
	var day, month, year, clock string
	switch {
	case len(s) == 29 && s[3:5] == ", " && s[7] == ' ' && s[11] == ' ' && s[16] == ' ' && s[25:] == " GMT":
		if !isName(shortDays, s[:3]) {
			return time.Time{}, false
		}
		day, month, year, clock = s[5:7], s[8:11], s[12:16], s[17:25]
	case len(s) == 24 && s[3] == ' ' && s[7] == ' ' && s[10] == ' ' && s[19] == ' ':
		if !isName(shortDays, s[:3]) {
			return time.Time{}, false
		}
		day, month, clock, year = s[8:10], s[4:7], s[11:19], s[20:]
		if day[0] == ' ' {
			day = day[1:]
		}
	default:
		name, rest, ok := strings.Cut(s, ", ")
		if !ok || !isName(longDays, name) || len(rest) != 22 || rest[2] != '-' || rest[6] != '-' || rest[9] != ' ' || rest[18:] != " GMT" {
			return time.Time{}, false
		}
		day, month, year, clock = rest[:2], rest[3:6], rest[7:9], rest[10:18]
	}
	m := strings.Index(months, month)
	d, okDay := number(day)
	y, okYear := number(year)
	if m < 0 || m%3 != 0 || !okDay || !okYear || len(clock) != 8 || clock[2] != ':' || clock[5] != ':' {
		return time.Time{}, false
	}
	if len(year) == 2 {
		y += 1900
		if y < 1969 {
			y += 100
		}
	}
	h, okH := number(clock[:2])
	mi, okM := number(clock[3:5])
	sec, okS := number(clock[6:])
	t := time.Date(y, time.Month(m/3+1), d, h, mi, sec, 0, time.UTC)
	if !okH || !okM || !okS || h > 23 || mi > 59 || sec > 59 || t.Day() != d {
		return time.Time{}, false // 31 Nov would be 1 Dec
	}
	return t, true
}

const months = "JanFebMarAprMayJunJulAugSepOctNovDec"

var (
	shortDays = []string{"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"}
	longDays  = []string{"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"}
)

func isName(names []string, s string) bool {
	for _, n := range names {
		if n == s {
			return true
		}
	}
	return false
}

// number reads a whole number written in ASCII digits, at least one.
func number(s string) (int, bool) {
	if s == "" || !digits(s) {
		return 0, false
	}
	n := 0
	for _, c := range []byte(s) {
		n = n*10 + int(c-'0')
	}
	return n, true
}

// digits reports whether s holds ASCII digits alone (or nothing).
func digits(s string) bool { return strings.Trim(s, "0123456789") == "" }

// parseDelay reads the retryDelay of a google.rpc.RetryInfo, a
// google.protobuf.Duration as JSON writes one: seconds with an optional
// fraction, then "s" ("7.5s"). One over maxRetryAfter is maxRetryAfter.
func parseDelay(s string) (time.Duration, bool) {
	s, ok := strings.CutSuffix(s, "s")
	whole, frac, _ := strings.Cut(s, ".")
	if !ok || whole == "" && frac == "" || !digits(whole) || !digits(frac) {
		return 0, false
	}
	if len(whole) > 9 {
		return maxRetryAfter, true // more than 31 years: no Memos means it
	}
	sec, _ := number(whole)
	d := time.Duration(sec) * time.Second
	for i, scale := 0, time.Second/10; i < min(len(frac), 9); i, scale = i+1, scale/10 {
		d += time.Duration(frac[i]-'0') * scale
	}
	return min(d, maxRetryAfter), true
}
