package finder

import (
	"testing"
	"time"
)

func mustZone(t *testing.T, name string) zone {
	t.Helper()
	z, err := loadZone(name, GoOffsets)
	if err != nil {
		t.Fatal(err)
	}
	return z
}

func utc(s string) time.Time {
	u, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return u
}

func TestSpans(t *testing.T) {
	thursday := utc("2024-03-14T10:00:00Z")
	for _, tc := range []struct {
		name string
		zone string
		now  time.Time
		args dateArgs
		want []Span // From, To in RFC 3339
	}{
		{"no date", "", thursday, dateArgs{}, nil},
		{"a day in UTC", "", thursday, dateArgs{on: "2024-03-10"}, []Span{{utc("2024-03-10T00:00:00Z"), utc("2024-03-11T00:00:00Z")}}},
		// Auckland is UTC+13 in March: its 10 March starts on the 9th in UTC.
		{"a day in Auckland", "Pacific/Auckland", thursday, dateArgs{on: "2024-03-10"}, []Span{{utc("2024-03-09T11:00:00Z"), utc("2024-03-10T11:00:00Z")}}},
		// Clocks go back an hour on 7 April 2024 in Auckland: a 25-hour day.
		{"Auckland's DST end", "Pacific/Auckland", thursday, dateArgs{on: "2024-04-07"}, []Span{{utc("2024-04-06T11:00:00Z"), utc("2024-04-07T12:00:00Z")}}},
		// Clocks go forward on 10 March 2024 in New York: a 23-hour day.
		{"New York's DST start", "America/New_York", thursday, dateArgs{on: "2024-03-10"}, []Span{{utc("2024-03-10T05:00:00Z"), utc("2024-03-11T04:00:00Z")}}},
		// Santiago skips midnight on 8 September 2024: the day starts at 01:00.
		{"a day without midnight", "America/Santiago", thursday, dateArgs{on: "2024-09-08"}, []Span{{utc("2024-09-08T04:00:00Z"), utc("2024-09-09T03:00:00Z")}}},
		{"a range", "", thursday, dateArgs{from: "2024-03-01", to: "2024-03-31"}, []Span{{utc("2024-03-01T00:00:00Z"), utc("2024-04-01T00:00:00Z")}}},
		{"from only", "Europe/Paris", thursday, dateArgs{from: "2024-03-01"}, []Span{{From: utc("2024-02-29T23:00:00Z")}}},
		{"to only", "", thursday, dateArgs{to: "2024-03-01"}, []Span{{To: utc("2024-03-02T00:00:00Z")}}},
		{"today", "", thursday, dateArgs{when: "today"}, []Span{{utc("2024-03-14T00:00:00Z"), utc("2024-03-15T00:00:00Z")}}},
		// 10:00 UTC on the 14th is 23:00 in Auckland: still the 14th there.
		{"today in Auckland", "Pacific/Auckland", thursday, dateArgs{when: "today"}, []Span{{utc("2024-03-13T11:00:00Z"), utc("2024-03-14T11:00:00Z")}}},
		// 11:30 UTC is 00:30 on the 15th in Auckland.
		{"today in Auckland after its midnight", "Pacific/Auckland", utc("2024-03-14T11:30:00Z"), dateArgs{when: "today"}, []Span{{utc("2024-03-14T11:00:00Z"), utc("2024-03-15T11:00:00Z")}}},
		{"yesterday", "", thursday, dateArgs{when: "yesterday"}, []Span{{utc("2024-03-13T00:00:00Z"), utc("2024-03-14T00:00:00Z")}}},
		{"this week from Monday", "", thursday, dateArgs{when: "this_week"}, []Span{{utc("2024-03-11T00:00:00Z"), utc("2024-03-18T00:00:00Z")}}},
		{"this week on a Sunday", "", utc("2024-03-17T10:00:00Z"), dateArgs{when: "this_week"}, []Span{{utc("2024-03-11T00:00:00Z"), utc("2024-03-18T00:00:00Z")}}},
		{"last week", "", thursday, dateArgs{when: "last_week"}, []Span{{utc("2024-03-04T00:00:00Z"), utc("2024-03-11T00:00:00Z")}}},
		{"this month", "", thursday, dateArgs{when: "this_month"}, []Span{{utc("2024-03-01T00:00:00Z"), utc("2024-04-01T00:00:00Z")}}},
		{"last month, a leap February", "", thursday, dateArgs{when: "last_month"}, []Span{{utc("2024-02-01T00:00:00Z"), utc("2024-03-01T00:00:00Z")}}},
		{"last month in January", "", utc("2024-01-20T00:00:00Z"), dateArgs{when: "last_month"}, []Span{{utc("2023-12-01T00:00:00Z"), utc("2024-01-01T00:00:00Z")}}},
		{"the last 3 days", "", thursday, dateArgs{lastDays: 3, hasLastDays: true}, []Span{{utc("2024-03-12T00:00:00Z"), utc("2024-03-15T00:00:00Z")}}},
		{"the last day", "", thursday, dateArgs{lastDays: 1, hasLastDays: true}, []Span{{utc("2024-03-14T00:00:00Z"), utc("2024-03-15T00:00:00Z")}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.args.spans(mustZone(t, tc.zone), tc.now)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("%d spans %v, want %v", len(got), got, tc.want)
			}
			for i := range got {
				if !got[i].From.Equal(tc.want[i].From) || !got[i].To.Equal(tc.want[i].To) {
					t.Errorf("span %d = [%s, %s), want [%s, %s)", i, got[i].From, got[i].To, tc.want[i].From, tc.want[i].To)
				}
			}
		})
	}
}

func TestOnThisDay(t *testing.T) {
	for _, tc := range []struct {
		name  string
		now   time.Time
		count int
		first time.Time
	}{
		{"a common day", utc("2024-03-14T10:00:00Z"), onThisDayYears, utc("2023-03-14T00:00:00Z")},
		{"29 February only in leap years", utc("2024-02-29T10:00:00Z"), 5, utc("2020-02-29T00:00:00Z")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := dateArgs{when: "on_this_day"}.spans(mustZone(t, ""), tc.now)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tc.count || !got[0].From.Equal(tc.first) || got[0].To.Sub(got[0].From) != 24*time.Hour {
				t.Errorf("%d spans from %v, want %d from %s", len(got), got[0], tc.count, tc.first)
			}
		})
	}
}

func TestSpanRefusals(t *testing.T) {
	now := utc("2024-03-14T10:00:00Z")
	for _, tc := range []struct {
		name string
		args dateArgs
	}{
		{"two forms", dateArgs{on: "2024-03-01", when: "today"}},
		{"not a date", dateArgs{on: "March 1"}},
		{"no such day", dateArgs{on: "2024-02-30"}},
		{"before 1970", dateArgs{on: "1969-12-31"}},
		{"from after to", dateArgs{from: "2024-03-02", to: "2024-03-01"}},
		{"zero days", dateArgs{lastDays: 0, hasLastDays: true}},
		{"too many days", dateArgs{lastDays: maxLastDays + 1, hasLastDays: true}},
		{"unknown when", dateArgs{when: "fortnight"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := tc.args.spans(mustZone(t, ""), now); err == nil {
				t.Error("accepted")
			}
		})
	}
}

func TestLoadZone(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"", true}, {"UTC", true}, {"Europe/Paris", true}, {"America/Argentina/Buenos_Aires", true}, {"Etc/GMT+5", true},
		{"Mars/Olympus", false}, {"../etc/passwd", false}, {"/etc/localtime", false}, {"Europe//Paris", false},
		{"Europe/Paris\x00", false}, {`") || true || ("`, false}, {string(make([]byte, 100)), false},
	} {
		if _, err := loadZone(tc.name, GoOffsets); (err == nil) != tc.ok {
			t.Errorf("loadZone(%q): %v, want ok=%t", tc.name, err, tc.ok)
		}
	}
}

func TestParseDate(t *testing.T) {
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{"2024-03-10", true}, {"1970-01-01", true}, {"2024-02-29", true}, {"2023-02-29", false}, {"2024-13-01", false},
		{"2024-00-10", false}, {"2024-3-10", false}, {"2024/03/10", false}, {"1969-12-31", false}, {"２０２４-03-10", false}, {"2024-03-1x", false},
	} {
		d, err := parseDate("on", tc.in)
		if (err == nil) != tc.ok || tc.ok && d.Format(time.DateOnly) != tc.in {
			t.Errorf("parseDate(%q) = %s, %v; want ok=%t", tc.in, d, err, tc.ok)
		}
	}
}

func TestSortTags(t *testing.T) {
	got := []Tag{{"b", 1}, {"a", 1}, {"z", 5}, {"c", 2}, {"y", 5}, {"d", 1}}
	sortTags(got)
	want := []Tag{{"y", 5}, {"z", 5}, {"c", 2}, {"a", 1}, {"b", 1}, {"d", 1}}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("sorted %v, want %v", got, want)
		}
	}
}
