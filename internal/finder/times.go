package finder

import (
	"strings"
	"time"
)

// The finding tools write Memos' times in the caller's time zone, with
// its offset then, so that a model tells the person the day they lived:
// Memos' 2026-11-29T23:13:22Z is Monday 00:13 in Berlin.

// show writes a time Memos sent (RFC 3339 in UTC) as the time in the
// zone, with the zone's offset then: 2026-11-30T00:13:22+01:00. Anything
// else is written as it came.
func (z zone) show(s string) string {
	t, ok := parseStamp(s)
	if !ok {
		return s
	}
	return t.In(time.FixedZone("", int(z.off(t)/time.Second))).Format(time.RFC3339)
}

// times writes a memo's creation and update times in the zone, the
// update time only when it falls on a later day ("" else): an edit the
// same day says nothing a person asks about.
func (z zone) times(created, updated string) (string, string) {
	c := z.show(created)
	t0, ok0 := parseStamp(created)
	t1, ok1 := parseStamp(updated)
	if updated == "" || ok0 && ok1 && z.dateOf(t0).Equal(z.dateOf(t1)) {
		return c, ""
	}
	return c, z.show(updated)
}

// MemoTimes is a memo's creation and update times as the finding tools
// write them (see zone.times), in the time zone called name: "" is UTC,
// and so is a zone offsets does not know.
func MemoTimes(created, updated, name string, offsets OffsetFunc) (string, string) {
	if offsets == nil {
		name = ""
	}
	z, err := loadZone(name, offsets)
	if err != nil {
		z, _ = loadZone("", nil)
	}
	return z.times(created, updated)
}

// parseStamp reads a time written as Memos writes them, in UTC:
// 2024-03-10T11:00:00Z, with a fraction of a second or not (by hand, as
// parseDate).
func parseStamp(s string) (time.Time, bool) {
	if len(s) < 20 || s[10] != 'T' || s[13] != ':' || s[16] != ':' || s[len(s)-1] != 'Z' {
		return time.Time{}, false
	}
	d, err := parseDate("", s[:10])
	if err != nil {
		return time.Time{}, false
	}
	var n [3]int
	for i, part := range [3]string{s[11:13], s[14:16], s[17:19]} {
		for _, c := range []byte(part) {
			if c < '0' || c > '9' {
				return time.Time{}, false
			}
			n[i] = n[i]*10 + int(c-'0')
		}
	}
	if frac := s[19 : len(s)-1]; frac != "" && (len(frac) < 2 || frac[0] != '.' || strings.Trim(frac[1:], "0123456789") != "") {
		return time.Time{}, false
	}
	if n[0] > 23 || n[1] > 59 || n[2] > 59 {
		return time.Time{}, false
	}
	return d.Add(time.Duration(n[0])*time.Hour + time.Duration(n[1])*time.Minute + time.Duration(n[2])*time.Second), true
}
