package uri

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// trickyHosts are spellings that once reached loopback or showed one name
// as another, and their neighbours.
var trickyHosts = []string{
	"127.1", "127.0.0.1", "127.0.0.1.", "2130706433", "2130706433.", "0x7f.0.0.1", "0x7F.1", "0177.0.0.1", "0177.1",
	"0x7f000001", "017700000001", "127.0.1", "127.000.000.001", "0x7f.0x0.0x0.0x1", "0x.0x.0x.0x", "0x", "0X",
	"１２７.０.０.１", "127。0。0。1", "claude.ai。evil.example", "claude.ai%E3%80%82evil.example", "%D0%B0pple.com",
	"%31%32%37.0.0.1", "127.0.0.1%2e", "localhost", "LOCALHOST", "localhost.", "a.localhost", "Foo.INTERNAL", "printer.LOCAL",
	"100.64.0.1", "100.127.255.255", "1681915905", "0x64.0x40.0.1", "169.254.169.254", "0xa9fea9fe", "10.1", "192.168.1",
	"[::1]", "[::]", "[::ffff:127.0.0.1]", "[::FFFF:7F00:1]", "[0:0:0:0:0:0:0:1]", "[::1%25lo]", "[fe80::1%25en0]",
	"[2001:DB8::0:1]", "[2001:db8:0:0:1:0:0:1]", "[1:0:0:2:0:0:0:3]", "[::ffff:1.2.3]", "[::ffff:01.2.3.4]", "[::127.0.0.1]",
	"[127.0.0.1]", "[v1.x]", "Example.COM", "example.com.", "example.com..", "a..b", ".example.com", "..", ".",
	"xn--pple-43d.com", "XN--PPLE-43D.COM", "xn--80ak6aa92e.com", "xn--", "xn--a", "-a.com", "a-.com", "a_b.com", "a b.com",
	"foo.0x7f", "foo.09", "foo.1", "1.foo", "09.foo", "1.2.3.4.5", "1.2.3.4.", "1.2.3.4..", "256.0.0.1", "1.256.0.1", "1.2.65536",
	"4294967295", "4294967296", "0xffffffff", "0x100000000", "99999999999999999999", "08", "0x1g", "0.0.0.0", "0",
	"claude.ai", "claude.ai.", "chatgpt.com", "a.b.c.d.e.f.g", strings.Repeat("a", 63) + ".com", strings.Repeat("a", 64) + ".com",
	strings.Repeat("a.", 126) + "a", strings.Repeat("a.", 127) + "a", strings.Repeat("a.", 126) + "a.", "ex;ample.com",
	"ex,ample.com", "a\u202eb.com", "\u200bexample.com", "example.com\u00ad", "ﬀ.com", "ß.com", "ΣΑΣ.com",
}

// hostURLs turns hosts into the URLs the differential test reads, with and
// without ports.
func hostURLs(hosts []string) []string {
	var urls []string
	for _, h := range hosts {
		urls = append(urls, "https://"+h+"/", "http://"+h+":8080/x")
	}
	for _, port := range []string{":", ":443", ":0443", ":80", ":0", ":65535", ":65536", ":99999999999999999999", ":8080"} {
		urls = append(urls, "https://example.com"+port+"/", "http://[::1]"+port+"/", "http://127.1"+port+"/")
	}
	return urls
}

// generatedHosts are IPv4 addresses in every number form the URL Standard
// reads, DNS names in mixed case, and random strings over the characters
// that matter to a host parser.
func generatedHosts() []string {
	r := rand.New(rand.NewPCG(22, 5))
	var hosts []string
	for _, a := range [][4]byte{{127, 0, 0, 1}, {127, 1, 2, 3}, {10, 0, 0, 1}, {100, 64, 0, 1}, {169, 254, 169, 254}, {0, 0, 0, 0}, {255, 255, 255, 255}, {192, 168, 0, 1}, {8, 8, 8, 8}} {
		for parts := 1; parts <= 4; parts++ {
			for form := range 4 * 4 * 4 * 4 {
				hosts = append(hosts, ipv4Spelling(a, parts, form, r))
			}
		}
	}
	for _, name := range []string{"claude.ai", "localhost", "example.internal", "xn--80ak6aa92e.com", "a-b.c-d.example"} {
		for range 8 {
			b := []byte(name)
			for i := range b {
				if r.IntN(2) == 0 {
					b[i] = strings.ToUpper(string(b[i]))[0]
				}
			}
			hosts = append(hosts, string(b), string(b)+".")
		}
	}
	const alphabet = "0123456789abcdefxX.-_:[]AZ%é。"
	letters := []rune(alphabet)
	for range 20000 {
		n := 1 + r.IntN(14)
		var b strings.Builder
		for range n {
			b.WriteRune(letters[r.IntN(len(letters))])
		}
		hosts = append(hosts, b.String())
	}
	return hosts
}

// ipv4Spelling writes address a in parts numbers, each in the radix that
// form picks (decimal, octal, hex, hex with 0X and leading zeros), and
// sometimes a trailing dot.
func ipv4Spelling(a [4]byte, parts, form int, r *rand.Rand) string {
	nums := make([]uint64, parts)
	for i := range parts - 1 {
		nums[i] = uint64(a[i])
	}
	for i := parts - 1; i < 4; i++ {
		nums[parts-1] = nums[parts-1]<<8 | uint64(a[i])
	}
	var out []string
	for i, n := range nums {
		switch form >> (2 * i) & 3 {
		case 0:
			out = append(out, strconv.FormatUint(n, 10))
		case 1:
			out = append(out, "0"+strconv.FormatUint(n, 8))
		case 2:
			out = append(out, "0x"+strconv.FormatUint(n, 16))
		case 3:
			out = append(out, "0X00"+strings.ToUpper(strconv.FormatUint(n, 16)))
		}
	}
	s := strings.Join(out, ".")
	if r.IntN(3) == 0 {
		s += "."
	}
	return s
}

// nodeURL is what Node's URL parser read in a URL; the zero value when it
// refused the URL.
type nodeURL struct{ Hostname, Origin string }

// nodeURLs asks Node's WHATWG URL parser (the runtime's fetch and the
// browsers use the same standard) for the hostname and origin of each URL.
func nodeURLs(t *testing.T, urls []string) []nodeURL {
	t.Helper()
	node, err := filepath.Abs(filepath.Join("..", "..", "node_modules", ".bin", "node"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(node); err != nil {
		t.Fatalf("%s is missing: run make (npm ci) first; the host parser is tested against Node's URL parser", node)
	}
	var in bytes.Buffer
	for _, u := range urls {
		b, _ := json.Marshal(u)
		in.Write(append(b, '\n'))
	}
	cmd := exec.Command(node, filepath.Join("testdata", "whatwg-hosts.mjs"))
	cmd.Stdin = &in
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	var hostnames []nodeURL
	lines := bufio.NewScanner(bytes.NewReader(out))
	for lines.Scan() {
		var got *nodeURL
		if err := json.Unmarshal(lines.Bytes(), &got); err != nil {
			t.Fatalf("node wrote %q: %v", lines.Text(), err)
		}
		if got == nil {
			got = &nodeURL{}
		}
		hostnames = append(hostnames, *got)
	}
	if len(hostnames) != len(urls) {
		t.Fatalf("node answered %d of %d URLs", len(hostnames), len(urls))
	}
	return hostnames
}

// parseOrigin is what the gateway does with a URL: Parse, then Origin.
func parseOrigin(u string) (string, Host, error) {
	p, err := Parse(u)
	if err != nil {
		return "", Host{}, err
	}
	return Origin(p)
}

// Every host ParseHost accepts is the host Node's URL parser reads, and an
// IP address there is the same IP address here; ParseHost may refuse what
// Node reads (it takes no Unicode), but where it accepts, it agrees. The
// one exception is an xn-- label Node finds to be invalid punycode: without
// IDNA tables ParseHost cannot tell, and a host Node refuses is one that
// neither fetch nor a browser connects to.
func TestParseHostAgainstNode(t *testing.T) {
	urls := hostURLs(append(trickyHosts, generatedHosts()...))
	node := nodeURLs(t, urls)
	accepted, agreedIP, punycode := 0, 0, 0
	for i, u := range urls {
		origin, h, err := parseOrigin(u)
		if err != nil {
			continue
		}
		accepted++
		if node[i].Hostname != "" && origin != node[i].Origin {
			t.Errorf("%q: Origin %q, Node %q", u, origin, node[i].Origin)
		}
		switch want := node[i].Hostname; {
		case want == "" && strings.Contains(h.Name, "xn--"):
			punycode++
		case want != h.Name:
			t.Errorf("%q: ParseHost reads %q, Node %q", u, h.Name, want)
		case h.Kind == IPv4:
			if ip, ok := ParseIP(want); !ok || ip != h.IP {
				t.Errorf("%q: ParseHost reads the IPv4 address %v, Node %q", u, h.IP.addr, want)
			}
			agreedIP++
		case h.Kind == IPv6:
			if ip, ok := ParseIP(strings.Trim(want, "[]")); !ok || ip.addr != h.IP.addr {
				t.Errorf("%q: ParseHost reads the IPv6 address %v, Node %q", u, h.IP.addr, want)
			}
			agreedIP++
		case h.Kind == DNSName:
			if _, ok := ParseIP(strings.Trim(want, "[]")); ok {
				t.Errorf("%q: ParseHost reads a DNS name, Node the address %q", u, want)
			}
		}
	}
	// A parser that refused everything would pass the loop above.
	if accepted < len(urls)/10 || agreedIP < 1000 {
		t.Errorf("ParseHost accepted only %d of %d URLs (%d IP addresses)", accepted, len(urls), agreedIP)
	}
	t.Logf("%d URLs, %d accepted, %d of them IP addresses; %d with xn-- labels Node refuses", len(urls), accepted, agreedIP, punycode)
}

func TestParseHost(t *testing.T) {
	for _, tc := range []struct {
		name, host, want string
		kind             HostKind
		loopback         bool
	}{
		{"short IPv4", "127.1", "127.0.0.1", IPv4, true},
		{"IPv4 with a trailing dot", "127.0.0.1.", "127.0.0.1", IPv4, true},
		{"one decimal number", "2130706433.", "127.0.0.1", IPv4, true},
		{"hex part", "0x7f.0.0.1", "127.0.0.1", IPv4, true},
		{"octal part", "0177.0.0.1", "127.0.0.1", IPv4, true},
		{"one hex number", "0x7f000001", "127.0.0.1", IPv4, true},
		{"carrier-grade NAT", "0x64.0x40.0.1", "100.64.0.1", IPv4, false},
		{"full-width digits", "１２７.０.０.１", "", 0, false},
		{"ideographic full stop", "127。0。0。1", "", 0, false},
		{"Cyrillic a", "аpple.com", "", 0, false},
		{"percent sign", "%", "", 0, false},
		{"upper-case name", "Foo.INTERNAL", "foo.internal", DNSName, false},
		{"trailing dot kept", "Example.com.", "example.com.", DNSName, false},
		{"punycode as written", "XN--PPLE-43D.com", "xn--pple-43d.com", DNSName, false},
		{"empty label", "a..b", "", 0, false},
		{"two trailing dots", "a.b..", "", 0, false},
		{"leading hyphen", "-a.com", "", 0, false},
		{"underscore", "a_b.com", "", 0, false},
		{"semicolon", "a;b.com", "", 0, false},
		{"ends in a hex number", "foo.0x7f", "", 0, false},
		{"ends in a bad octal number", "foo.09", "", 0, false},
		{"five numbers", "1.2.3.4.5", "", 0, false},
		{"last number too large", "1.2.65536", "", 0, false},
		{"huge number", "99999999999999999999", "", 0, false},
		{"IPv6 loopback", "::1", "[::1]", IPv6, true},
		{"IPv4-mapped IPv6", "::ffff:127.0.0.1", "[::ffff:7f00:1]", IPv6, true},
		{"IPv6 compressed once", "1:0:0:2:0:0:0:3", "[1:0:0:2::3]", IPv6, false},
		{"IPv6 zone", "fe80::1%en0", "", 0, false},
		{"longest name", strings.Repeat("a.", 126) + "a", strings.Repeat("a.", 126) + "a", DNSName, false},
		{"name too long", strings.Repeat("a.", 127) + "a", "", 0, false},
		{"label too long", strings.Repeat("a", 64) + ".com", "", 0, false},
		{"empty", "", "", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := ParseHost(tc.host)
			if tc.want == "" {
				if err == nil {
					t.Fatalf("ParseHost(%q) = %+v, want an error", tc.host, h)
				}
				return
			}
			if err != nil || h.Name != tc.want || h.Kind != tc.kind {
				t.Fatalf("ParseHost(%q) = %q kind %d, %v; want %q kind %d", tc.host, h.Name, h.Kind, err, tc.want, tc.kind)
			}
			if h.Kind != DNSName && h.IP.IsLoopback() != tc.loopback {
				t.Errorf("ParseHost(%q) loopback %v, want %v", tc.host, h.IP.IsLoopback(), tc.loopback)
			}
		})
	}
}

func FuzzParseHost(f *testing.F) {
	for _, h := range trickyHosts {
		f.Add(h)
	}
	f.Fuzz(func(t *testing.T, s string) {
		h, err := ParseHost(s)
		if err != nil {
			return
		}
		// What ParseHost writes, it reads back as itself.
		again, err := ParseHost(strings.Trim(h.Name, "[]"))
		if err != nil || again != h {
			t.Fatalf("ParseHost(%q) = %+v, and that name reads as %+v, %v", s, h, again, err)
		}
	})
}
