//go:build js && wasm

package bridge

import (
	"sync"
	"syscall/js"
	"time"
)

// ZoneOffset returns the offset east of UTC, in seconds, of the IANA time
// zone called name at t, as the runtime's Intl reckons it from its own
// time zone database; ok is false for a zone Intl does not know. (Go's
// time.LoadLocation would need time/tzdata in the wasm: +100 KB.)
func ZoneOffset(name string, t time.Time) (seconds int, ok bool) {
	f, ok := zoneFormat(name)
	if !ok {
		return 0, false
	}
	t = t.Truncate(time.Second)
	// format takes the time as a number of milliseconds: no Date object.
	// Every object js.Value gets a finalizer, and adding one costs more the
	// more a span of the heap holds: with a Date per call, finalizers took
	// a fifth of workerd's CPU in memo_search's on_this_day (bench -cpu
	// -profile).
	s := f.Call("format", float64(t.Unix())*1000).String()
	// en-US, numeric, 23-hour clock: "3/10/2024, 13:05:09".
	var n [6]int
	k := 0
	for i := 0; i < len(s) && k < len(n); i++ {
		if c := s[i]; '0' <= c && c <= '9' {
			n[k] = n[k]*10 + int(c-'0')
			if i+1 == len(s) || s[i+1] < '0' || s[i+1] > '9' {
				k++
			}
		}
	}
	if k < len(n) {
		return 0, false
	}
	local := time.Date(n[2], time.Month(n[0]), n[1], n[3], n[4], n[5], 0, time.UTC)
	return int(local.Sub(t.UTC()) / time.Second), true
}

// zoneFormats keeps the Intl.DateTimeFormat of the zones asked for
// lately: making one costs more than using it.
var zoneFormats struct {
	sync.Mutex
	m map[string]js.Value
}

const maxZoneFormats = 32

func zoneFormat(name string) (f js.Value, ok bool) {
	zoneFormats.Lock()
	defer zoneFormats.Unlock()
	if f, ok := zoneFormats.m[name]; ok {
		return f, true
	}
	defer func() {
		if recover() != nil { // Intl throws a RangeError for an unknown zone
			f, ok = js.Value{}, false
		}
	}()
	opts := map[string]any{"timeZone": name, "hourCycle": "h23", "year": "numeric", "month": "numeric",
		"day": "numeric", "hour": "numeric", "minute": "numeric", "second": "numeric"}
	f = js.Global().Get("Intl").Get("DateTimeFormat").New("en-US", opts)
	if zoneFormats.m == nil || len(zoneFormats.m) >= maxZoneFormats {
		zoneFormats.m = map[string]js.Value{}
	}
	zoneFormats.m[name] = f
	return f, true
}
