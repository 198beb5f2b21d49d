package memos

import (
	"strings"
	"testing"
	"time"
)

// The layouts of RFC 9110's three date forms, as time.Parse spells them.
var httpLayouts = []string{"Mon, 02 Jan 2006 15:04:05 GMT", "Monday, 02-Jan-06 15:04:05 GMT", "Mon Jan _2 15:04:05 2006"}

// stdHTTPDate is what parseHTTPDate replaces: the first layout time.Parse
// reads s with.
func stdHTTPDate(s string) (time.Time, bool) {
	for _, layout := range httpLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

func TestParseHTTPDate(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string // RFC 3339, "" for refused
	}{
		{"Sun, 06 Nov 1994 08:49:37 GMT", "1994-11-06T08:49:37Z"},
		{"Sunday, 06-Nov-94 08:49:37 GMT", "1994-11-06T08:49:37Z"},
		{"Sun Nov  6 08:49:37 1994", "1994-11-06T08:49:37Z"},
		{"Sun Nov 16 08:49:37 1994", "1994-11-16T08:49:37Z"},
		{"Tuesday, 01-Dec-26 12:00:10 GMT", "2026-12-01T12:00:10Z"},
		{"Thursday, 01-Jan-68 00:00:00 GMT", "2068-01-01T00:00:00Z"},
		{"Wednesday, 01-Jan-69 00:00:00 GMT", "1969-01-01T00:00:00Z"},
		{"Thu, 29 Feb 2024 23:59:59 GMT", "2024-02-29T23:59:59Z"},
		{"Mon, 06 Nov 1994 08:49:37 GMT", "1994-11-06T08:49:37Z"}, // the wrong day's name, ignored as time.Parse does
		{"Wed, 29 Feb 2023 00:00:00 GMT", ""},
		{"Sun, 31 Nov 1994 08:49:37 GMT", ""},
		{"Sun, 06 Nov 1994 24:00:00 GMT", ""},
		{"Sun, 06 Nov 1994 08:60:37 GMT", ""},
		{"Sun, 06 Nov 1994 08:49:60 GMT", ""},
		{"Sun, 06 Nov 1994 08:49:37 UTC", ""},
		{"Sun, 06 Xyz 1994 08:49:37 GMT", ""},
		{"Sun, 06 anF 1994 08:49:37 GMT", ""}, // a slice of the month names that is not one
		{"Sun, 00 Nov 1994 08:49:37 GMT", ""},
		{"Sun, +6 Nov 1994 08:49:37 GMT", ""},
		{"Sunday, 06-Nov-+4 08:49:37 GMT", ""},
		{"Funday, 06-Nov-94 08:49:37 GMT", ""},
		{"Sun Nov  6 08:49:37 94", ""},
		{"", ""}, {"soon", ""}, {"Sun, 06 Nov 1994", ""},
	} {
		got, ok := parseHTTPDate(tc.in)
		if ok != (tc.want != "") || ok && got.Format(time.RFC3339) != tc.want {
			t.Errorf("parseHTTPDate(%q) = %v, %v; want %q", tc.in, got, ok, tc.want)
		}
		if std, stdOK := stdHTTPDate(tc.in); ok && (!stdOK || !std.Equal(got)) {
			t.Errorf("parseHTTPDate(%q) = %v; time.Parse: %v, %v", tc.in, got, std, stdOK)
		}
	}
}

// FuzzParseHTTPDate holds parseHTTPDate against time.Parse: a date it
// reads, time.Parse reads as the same time; and every time written in any
// of the three forms (from 1 January 1000 to 9999; the two-digit year's
// 1969–2068) it reads as time.Parse does. time.Parse is laxer than the
// RFC's grammar (any case in names, runs of spaces, a one-digit hour, a
// fraction of a second, a sign in a two-digit year), which parseHTTPDate
// does not follow.
func FuzzParseHTTPDate(f *testing.F) {
	f.Add("Sun, 06 Nov 1994 08:49:37 GMT", int64(784111777))
	f.Add("Sunday, 06-Nov-94 08:49:37 GMT", int64(0))
	f.Add("Sun Nov  6 08:49:37 1994", int64(-1))
	f.Add("sun, 06 nov 1994 8:49:37.5 GMT", int64(253402300799))
	f.Fuzz(func(t *testing.T, s string, sec int64) {
		if got, ok := parseHTTPDate(s); ok {
			if std, stdOK := stdHTTPDate(s); !stdOK || !std.Equal(got) {
				t.Errorf("parseHTTPDate(%q) = %v; time.Parse: %v, %v", s, got, std, stdOK)
			}
		}
		first, last := time.Date(1000, 1, 1, 0, 0, 0, 0, time.UTC).Unix(), time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC).Unix()
		at := time.Unix(first+(sec%(last-first)+(last-first))%(last-first), 0).UTC()
		for i, layout := range httpLayouts {
			if i == 1 && (at.Year() < 1969 || at.Year() > 2068) {
				continue
			}
			written := at.Format(layout)
			if got, ok := parseHTTPDate(written); !ok || !got.Equal(at) {
				t.Errorf("parseHTTPDate(%q) = %v, %v; want %v", written, got, ok, at)
			}
		}
	})
}

func TestParseDelay(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"7.5s", 7500 * time.Millisecond, true},
		{"42s", 42 * time.Second, true},
		{"0s", 0, true},
		{"0.000000001s", 1, true},
		{"1.0000000019s", time.Second + 1, true}, // past nanoseconds is cut, as time.ParseDuration cuts it
		{"1.s", time.Second, true},
		{".5s", 500 * time.Millisecond, true},
		{"90000s", maxRetryAfter, true},
		{"99999999999999999999s", maxRetryAfter, true},
		{"-1s", 0, false}, {"+1s", 0, false}, {"1m", 0, false}, {"1", 0, false}, {"s", 0, false}, {".s", 0, false},
		{"1.5.5s", 0, false}, {"1e3s", 0, false}, {" 1s", 0, false}, {"", 0, false},
	} {
		if got, ok := parseDelay(tc.in); got != tc.want || ok != tc.ok {
			t.Errorf("parseDelay(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// FuzzParseDelay holds parseDelay against time.ParseDuration: a delay it
// reads, time.ParseDuration reads as the same (up to maxRetryAfter, and
// where it fits a time.Duration at all); and seconds written as protobuf's
// JSON writes them (0, 3, 6 or 9 digits of fraction) it reads as
// time.ParseDuration does.
func FuzzParseDelay(f *testing.F) {
	f.Add("7.5s", int64(7500000000))
	f.Add("1h", int64(1))
	f.Add("-0.5s", int64(-1))
	f.Add("9999999999.5s", int64(0))
	f.Fuzz(func(t *testing.T, s string, nanos int64) {
		if got, ok := parseDelay(s); ok {
			whole, _, _ := strings.Cut(strings.TrimSuffix(s, "s"), ".")
			std, err := time.ParseDuration(s)
			if len(whole) <= 9 && (err != nil || min(std, maxRetryAfter) != got) {
				t.Errorf("parseDelay(%q) = %v; time.ParseDuration: %v, %v", s, got, std, err)
			}
		}
		d := time.Duration(max(nanos, -nanos, 0) % int64(maxRetryAfter))
		fraction := itoa(int(d%time.Second + time.Second))[1:] // nine digits
		for _, n := range []int{0, 3, 6, 9} {
			written := itoa(int(d/time.Second)) + "." + fraction[:n] + "s"
			if n == 0 {
				written = itoa(int(d/time.Second)) + "s"
			}
			std, err := time.ParseDuration(written)
			if got, ok := parseDelay(written); err != nil || !ok || got != std {
				t.Errorf("parseDelay(%q) = %v, %v; time.ParseDuration: %v, %v", written, got, ok, std, err)
			}
		}
	})
}
