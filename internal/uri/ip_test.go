package uri

import (
	"net/netip"
	"testing"
)

var ipSeeds = []string{
	"127.0.0.1", "127.255.0.9", "10.1.2.3", "172.16.0.1", "172.31.255.255", "172.32.0.1", "192.168.1.1", "192.169.0.1",
	"169.254.1.1", "224.0.0.1", "239.1.1.1", "255.255.255.255", "0.0.0.0", "8.8.8.8", "1.2.3", "1.2.3.4.5", "01.2.3.4",
	"1.2.3.04", "0.0.0.00", "256.1.1.1", "1..2.3", ".1.2.3", "1.2.3.", "1.2.3.4%eth0", "1.2.3.a", "",
	"::", "::1", "::2", "1::", "::1%lo0", "::1%", "%lo", "fe80::1", "fe80::1%en0", "febf::1", "fec0::1", "fc00::1", "fd12:3456::1",
	"fe00::1", "ff02::1", "2001:db8::1", "2001:0db8:0000:0000:0000:0000:0000:0001", "2001:db8:0:0:0:0:0:1:2", "1:2:3:4:5:6:7:8",
	"1:2:3:4:5:6:7:8::", "::1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7::", "::1:2:3:4:5:6:7", "1::2::3", ":::", ":1", "1:", "1:::2", "12345::",
	"1:2:3:4:5:6:7", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "::ffff:0.0.0.0", "::ffff:255.255.255.255", "::ffff:169.254.0.1",
	"::ffff:224.0.0.1", "::127.0.0.1", "1:2:3:4:5:6:1.2.3.4", "1:2:3:4:5:1.2.3.4", "1:2:3:4:5:6:7:1.2.3.4", "::1.2.3",
	"::1a.2.3.4", "::ffff:1.2.3.4%z", "::ffff:01.2.3.4", "::0:ffff:1.2.3.4", "0:0:0:0:0:ffff:7f00:1", "::FFFF:7F00:1",
	"1:2:3:4:5:6:7:8%", "g::1", "::g", "1:2:3:4:5:6::7:8", "::%0",
}

func TestParseIP(t *testing.T) {
	for _, s := range ipSeeds {
		checkIP(t, s)
	}
}

// checkIP compares ParseIP with net/netip, which it replaces in the wasm:
// whether it reads s, the address, and every class the gateway asks for.
func checkIP(t *testing.T, s string) {
	t.Helper()
	got, ok := ParseIP(s)
	want, err := netip.ParseAddr(s)
	if ok != (err == nil) {
		t.Fatalf("ParseIP(%q) ok %v, net/netip: %v", s, ok, err)
	}
	if !ok {
		return
	}
	if got.addr != want.As16() || got.Is4() != want.Is4() {
		t.Fatalf("ParseIP(%q) = %v (IPv4 %v), net/netip %v", s, got.addr, got.Is4(), want)
	}
	// Whether an address is loopback does not depend on its zone, which
	// ParseIP drops.
	if got.IsLoopback() != want.WithZone("").IsLoopback() {
		t.Fatalf("ParseIP(%q).IsLoopback() = %v; net/netip %v", s, got.IsLoopback(), want.IsLoopback())
	}
}

func TestResolvesToLoopback(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost": true, "a.localhost": true, "127.0.0.1": true, "127.9.9.9": true, "::1": true, "[::1]": true,
		"::ffff:127.0.0.1": true, "localhost.example": false, "example.com": false, "10.0.0.1": false, "::2": false,
		"[::1": true, "": false, "0.0.0.0": false,
	} {
		if got := ResolvesToLoopback(host); got != want {
			t.Errorf("ResolvesToLoopback(%q) = %v, want %v", host, got, want)
		}
	}
}

func FuzzParseIP(f *testing.F) {
	for _, s := range ipSeeds {
		f.Add(s)
	}
	f.Fuzz(checkIP)
}
