//go:build js && wasm

package bridge

import (
	"math"
	"sync"
	"syscall/js"
	"time"
)

// ZoneOffset returns the offset east of UTC, in seconds, of the IANA time
// zone called name at t, as the runtime's Intl reckons it from its own
// time zone database; ok is false for a zone Intl does not know. (Go's
// time.LoadLocation would need time/tzdata in the wasm: +100 KB.)
//
// The driver reckons it (its context's zoneOffset) and hands back a
// number: a js.Value of an object or a string gets a finalizer, whose
// insertion walks what its span of the heap holds, and with a string per
// call finalizers took 5% of workerd's CPU in memo_search's on_this_day
// (bench -cpu -profile). A zone crosses as a string once, when it gets its
// slot; later calls pass the slot and the time, both numbers.
func ZoneOffset(name string, t time.Time) (seconds int, ok bool) {
	slot, ok := zoneSlot(name)
	if !ok {
		return 0, false
	}
	v := runtimeContext.Call("zoneOffset", slot, float64(t.Unix())*1000)
	if v.Type() != js.TypeNumber {
		return 0, false
	}
	f := v.Float()
	if math.IsNaN(f) {
		return 0, false
	}
	return int(f), true
}

// zoneSlots keeps the slots of the driver's zone formats by zone name:
// making a format costs more than using it. When all maxZoneFormats are
// taken, they are given out afresh.
var zoneSlots struct {
	sync.Mutex
	m map[string]int
}

const maxZoneFormats = 32

func zoneSlot(name string) (int, bool) {
	zoneSlots.Lock()
	defer zoneSlots.Unlock()
	if slot, ok := zoneSlots.m[name]; ok {
		return slot, true
	}
	if zoneSlots.m == nil || len(zoneSlots.m) >= maxZoneFormats {
		zoneSlots.m = map[string]int{}
	}
	slot := len(zoneSlots.m)
	// false for a zone Intl does not know, which keeps no slot.
	if !runtimeContext.Call("zone", slot, name).Truthy() {
		return 0, false
	}
	zoneSlots.m[name] = slot
	return slot, true
}
