package finder

import (
	"testing"
	"time"
)

// FuzzParseDate holds parseDate against time.Parse: a day it reads,
// time.Parse reads as the same day, and every day from 1970 to 9999 written
// YYYY-MM-DD it reads as time.Parse does.
func FuzzParseDate(f *testing.F) {
	f.Add("2024-02-29", int64(0))
	f.Add("2023-02-29", int64(-1))
	f.Add("+024-02-29", int64(253402300799))
	f.Fuzz(func(t *testing.T, s string, sec int64) {
		if d, err := parseDate("", s); err == nil {
			if std, stdErr := time.Parse(time.DateOnly, s); stdErr != nil || !std.Equal(d) || d.Year() < 1970 {
				t.Errorf("parseDate(%q) = %v; time.Parse: %v, %v", s, d, std, stdErr)
			}
		}
		day := sinceEpoch(sec).Truncate(24 * time.Hour)
		if d, err := parseDate("", day.Format(time.DateOnly)); err != nil || !d.Equal(day) {
			t.Errorf("parseDate(%q) = %v, %v; want %v", day.Format(time.DateOnly), d, err, day)
		}
	})
}

// FuzzParseStamp holds parseStamp against time.Parse: a time it reads,
// time.Parse reads as RFC 3339 as the same instant (parseStamp keeps whole
// seconds), and every time from 1970 to 9999 written as Memos writes them
// (in UTC, with a fraction of a second or not) it reads as time.Parse does.
func FuzzParseStamp(f *testing.F) {
	f.Add("2024-03-10T11:00:00Z", int64(0), uint32(0))
	f.Add("2024-03-10T11:00:00.123456789Z", int64(1), uint32(123456789))
	f.Add("2024-03-10T11:00:00.Z", int64(-1), uint32(1))
	f.Add("2024-03-10T11:00:00+01:00", int64(253402300799), uint32(999999999))
	f.Fuzz(func(t *testing.T, s string, sec int64, nanos uint32) {
		if got, ok := parseStamp(s); ok {
			if std, err := time.Parse(time.RFC3339, s); err != nil || !std.Truncate(time.Second).Equal(got) {
				t.Errorf("parseStamp(%q) = %v; time.Parse: %v, %v", s, got, std, err)
			}
		}
		at := sinceEpoch(sec).Add(time.Duration(nanos % 1e9))
		for _, layout := range []string{time.RFC3339, time.RFC3339Nano, "2006-01-02T15:04:05.000Z07:00"} {
			written := at.Format(layout)
			if got, ok := parseStamp(written); !ok || !got.Equal(at.Truncate(time.Second)) {
				t.Errorf("parseStamp(%q) = %v, %v; want %v", written, got, ok, at.Truncate(time.Second))
			}
		}
	})
}

// sinceEpoch maps any number onto a whole second from 1970 to 9999, in UTC.
func sinceEpoch(sec int64) time.Time {
	last := time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC).Unix() + 1
	return time.Unix((sec%last+last)%last, 0).UTC()
}
