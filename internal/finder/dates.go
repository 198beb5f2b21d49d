package finder

import (
	"errors"
	"strconv"
	"strings"
	"sync"
	"time"
)

// OffsetFunc returns the offset east of UTC, in seconds, of the IANA time
// zone called name at instant t; ok is false for a zone it does not know.
//
// In the Worker it is the bridge's, which asks the JavaScript runtime's
// Intl (which carries the time zone database): Go's own needs time/tzdata
// linked in there, +100 KB of wasm (+95 KB gzip -9), measured on this
// program. Natively it is GoOffsets.
type OffsetFunc func(name string, t time.Time) (seconds int, ok bool)

var goZones sync.Map // name → *time.Location, only those that loaded

// GoOffsets is an OffsetFunc over Go's time package and the system's zone
// database.
func GoOffsets(name string, t time.Time) (int, bool) {
	loc, ok := goZones.Load(name)
	if !ok {
		l, err := time.LoadLocation(name)
		if err != nil {
			return 0, false
		}
		loc, _ = goZones.LoadOrStore(name, l)
	}
	_, off := t.In(loc.(*time.Location)).Zone()
	return off, true
}

// zone is a time zone the caller named, with the way to learn its offsets.
type zone struct {
	name   string
	offset OffsetFunc
}

// maxZoneName bounds a time zone's name; the longest IANA name has 32 bytes.
const maxZoneName = 64

// loadZone checks a zone name ("" is UTC) and that the zone is known.
func loadZone(name string, offset OffsetFunc) (zone, error) {
	if name == "" || name == "UTC" || name == "Etc/UTC" {
		return zone{name: "UTC", offset: func(string, time.Time) (int, bool) { return 0, true }}, nil
	}
	if !zoneName(name) {
		return zone{}, errors.New(`timezone must be an IANA time zone name such as "Europe/Paris" or "America/New_York"`)
	}
	if _, ok := offset(name, time.Unix(0, 0)); !ok {
		return zone{}, errors.New("timezone " + strconv.Quote(name) + ` is not a known IANA time zone: use a name such as "Europe/Paris" or "America/New_York"`)
	}
	return zone{name: name, offset: offset}, nil
}

// zoneName reports whether s is shaped like an IANA zone name: letters,
// digits, _ + - and slashes between non-empty parts.
func zoneName(s string) bool {
	if len(s) > maxZoneName || strings.Contains(s, "..") {
		return false
	}
	for _, part := range strings.Split(s, "/") {
		if part == "" {
			return false
		}
		for _, c := range []byte(part) {
			if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '+' || c == '-') {
				return false
			}
		}
	}
	return true
}

// CheckZone checks the deployment's default time zone (TIMEZONE): "" or
// a zone offset knows.
func CheckZone(name string, offset OffsetFunc) error {
	if _, err := loadZone(name, offset); err != nil {
		return errors.New("TIMEZONE is not a known IANA time zone name: set it to one such as Europe/Berlin, or leave it unset for UTC")
	}
	return nil
}

func (z zone) off(t time.Time) time.Duration {
	s, _ := z.offset(z.name, t)
	return time.Duration(s) * time.Second
}

// date is a calendar day, held as its midnight in UTC.
type date = time.Time

func civil(y int, m time.Month, d int) date { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

// today is the calendar day at instant now in the zone.
func (z zone) today(now time.Time) date {
	l := now.UTC().Add(z.off(now))
	return civil(l.Year(), l.Month(), l.Day())
}

// dateOf is the calendar day at instant t in the zone.
func (z zone) dateOf(t time.Time) date { return z.today(t) }

// start returns the first instant of day d in the zone: its midnight, or,
// where the clocks skip midnight, the instant they skip it.
func (z zone) start(d date) time.Time {
	var first time.Time
	for _, o := range []time.Duration{z.off(d), z.off(d.Add(-24 * time.Hour)), z.off(d.Add(24 * time.Hour))} {
		u := d.Add(-o)
		if z.off(u) == o && (first.IsZero() || u.Before(first)) {
			first = u // midnight exists at this offset; the earlier wins
		}
	}
	if !first.IsZero() {
		return first
	}
	// Midnight falls in a gap: find the first instant of d between the day
	// before's end at the largest offset and d's at the smallest.
	lo, hi := d.Add(-26*time.Hour), d.Add(26*time.Hour)
	for hi.Sub(lo) > time.Second {
		mid := lo.Add(hi.Sub(lo) / 2).Truncate(time.Second)
		if z.dateOf(mid).Before(d) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

// day is the span of the calendar days from d to last, both included.
func (z zone) days(d, last date) Span {
	return Span{From: z.start(d), To: z.start(last.AddDate(0, 0, 1))}
}

// Date forms memo_search takes.
const (
	maxLastDays    = 3660 // ten years
	onThisDayYears = 20   // "on this day" looks this many years back
)

// when are the relative date forms.
var when = []string{"today", "yesterday", "this_week", "last_week", "this_month", "last_month", "on_this_day"}

// dateArgs are memo_search's date arguments.
type dateArgs struct {
	on, from, to, when string
	lastDays           int64
	hasLastDays        bool
}

// spans returns the creation-time spans the date arguments ask for, in
// the zone, with now as the present; none when no date argument is given.
func (a dateArgs) spans(z zone, now time.Time) ([]Span, error) {
	forms := 0
	for _, given := range []bool{a.on != "", a.from != "" || a.to != "", a.when != "", a.hasLastDays} {
		if given {
			forms++
		}
	}
	if forms > 1 {
		return nil, errors.New("give one of on, from/to, when and lastDays, not several")
	}
	today := z.today(now)
	switch {
	case a.on != "":
		d, err := parseDate("on", a.on)
		if err != nil {
			return nil, err
		}
		return []Span{z.days(d, d)}, nil
	case a.from != "" || a.to != "":
		var s Span
		var first, last date
		if a.from != "" {
			d, err := parseDate("from", a.from)
			if err != nil {
				return nil, err
			}
			first, s.From = d, z.start(d)
		}
		if a.to != "" {
			d, err := parseDate("to", a.to)
			if err != nil {
				return nil, err
			}
			last, s.To = d, z.start(d.AddDate(0, 0, 1))
		}
		if a.from != "" && a.to != "" && last.Before(first) {
			return nil, errors.New("from must not be after to")
		}
		return []Span{s}, nil
	case a.hasLastDays:
		if a.lastDays < 1 || a.lastDays > maxLastDays {
			return nil, errors.New("lastDays must be from 1 to " + strconv.Itoa(maxLastDays))
		}
		return []Span{z.days(today.AddDate(0, 0, 1-int(a.lastDays)), today)}, nil
	}
	monday := today.AddDate(0, 0, -(int(today.Weekday())+6)%7)
	month := civil(today.Year(), today.Month(), 1)
	switch a.when {
	case "":
		return nil, nil
	case "today":
		return []Span{z.days(today, today)}, nil
	case "yesterday":
		y := today.AddDate(0, 0, -1)
		return []Span{z.days(y, y)}, nil
	case "this_week":
		return []Span{z.days(monday, monday.AddDate(0, 0, 6))}, nil
	case "last_week":
		return []Span{z.days(monday.AddDate(0, 0, -7), monday.AddDate(0, 0, -1))}, nil
	case "this_month":
		return []Span{z.days(month, month.AddDate(0, 1, -1))}, nil
	case "last_month":
		return []Span{z.days(month.AddDate(0, -1, 0), month.AddDate(0, 0, -1))}, nil
	case "on_this_day":
		var spans []Span
		for k := 1; k <= onThisDayYears; k++ {
			d := civil(today.Year()-k, today.Month(), today.Day())
			if d.Day() != today.Day() {
				continue // 29 February in a common year
			}
			spans = append(spans, z.days(d, d))
		}
		return spans, nil
	}
	return nil, errors.New("when must be one of " + strings.Join(when, ", "))
}

// parseDate reads a calendar day written YYYY-MM-DD, from 1970 on (by
// hand: time.Parse adds 10 KB of wasm).
func parseDate(arg, s string) (date, error) {
	bad := errors.New(arg + " must be a day written YYYY-MM-DD, from 1970, such as 2025-03-14")
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return date{}, bad
	}
	var n [3]int
	for i, part := range [3]string{s[:4], s[5:7], s[8:]} {
		for _, c := range []byte(part) {
			if c < '0' || c > '9' {
				return date{}, bad
			}
			n[i] = n[i]*10 + int(c-'0')
		}
	}
	d := civil(n[0], time.Month(n[1]), n[2])
	if n[0] < 1970 || d.Month() != time.Month(n[1]) || d.Day() != n[2] {
		return date{}, bad // 2024-02-30 would be 1 March
	}
	return d, nil
}

// IsDay reports whether s is a day as the finding tools take one (see
// parseDate), for the prompts that pass one on.
func IsDay(s string) bool {
	_, err := parseDate("", s)
	return err == nil
}
