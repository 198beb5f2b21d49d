// Command wasmsize tells what a Go wasm is made of: it reads the function
// names a build without -s keeps (the name section), attributes every
// function body of the code section to its Go package, and prints the
// packages by size, then the data and the totals.
//
//	GOOS=js GOARCH=wasm go build -trimpath -o build/app.named.wasm .
//	go run ./test/wasmsize build/app.named.wasm
//
// -n limits the list of packages; -funcs PKG lists that package's functions
// instead; -prefix DEPTH rolls packages up to their first DEPTH path elements
// (crypto/internal/fips140/sha256 at 2 is crypto/internal).
package main

import (
	"bytes"
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

func main() {
	top := flag.Int("n", 40, "how many packages to list (0: all)")
	funcs := flag.String("funcs", "", "list the functions of this package instead")
	depth := flag.Int("prefix", 0, "roll packages up to this many path elements (0: none)")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: wasmsize [-n N] [-funcs PKG] [-prefix DEPTH] file.wasm")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	b, err := os.ReadFile(flag.Arg(0))
	if err != nil {
		fatal(err)
	}
	m, err := parse(b)
	if err != nil {
		fatal(fmt.Errorf("%s: %w", flag.Arg(0), err))
	}
	if len(m.names) == 0 {
		fatal(errors.New("no function names: build without -ldflags=-s"))
	}
	if *funcs != "" {
		printFuncs(os.Stdout, m, *funcs)
		return
	}
	printPackages(os.Stdout, m, *top, *depth)
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "wasmsize:", err)
	os.Exit(1)
}

// A body is one function of the code section: its name and its size in bytes.
type body struct {
	name string
	size int
}

// printPackages prints the top packages by code size, then the totals.
func printPackages(w io.Writer, m module, top, depth int) {
	byPkg := map[string]int{}
	count := map[string]int{}
	code := 0
	for _, f := range m.bodies {
		p := rollUp(packageOf(f.name, m.modules), depth)
		byPkg[p] += f.size
		count[p]++
		code += f.size
	}
	pkgs := make([]string, 0, len(byPkg))
	for p := range byPkg {
		pkgs = append(pkgs, p)
	}
	slices.SortFunc(pkgs, func(a, b string) int {
		return cmp.Or(cmp.Compare(byPkg[b], byPkg[a]), cmp.Compare(a, b))
	})
	if top > 0 && len(pkgs) > top {
		pkgs = pkgs[:top]
	}
	fmt.Fprintf(w, "%10s %6s %6s  %s\n", "bytes", "%code", "funcs", "package")
	shown := 0
	for _, p := range pkgs {
		fmt.Fprintf(w, "%10d %5.1f%% %6d  %s\n", byPkg[p], 100*float64(byPkg[p])/float64(code), count[p], p)
		shown += byPkg[p]
	}
	if rest := code - shown; rest > 0 {
		fmt.Fprintf(w, "%10d %5.1f%% %6s  (%d more packages)\n", rest, 100*float64(rest)/float64(code), "", len(byPkg)-len(pkgs))
	}
	fmt.Fprintf(w, "\n%10d  code section: %d function bodies, %d bytes of them above\n", m.codeSection, len(m.bodies), code)
	fmt.Fprintf(w, "%10d  data section: %d segments, %d bytes of contents (strings, tables, type data, pclntab)\n", m.dataSection, m.segments, m.data)
	fmt.Fprintf(w, "%10d  name section (-s removes it)\n", m.nameSection)
	fmt.Fprintf(w, "%10d  other sections and headers\n", m.size-m.codeSection-m.dataSection-m.nameSection)
	fmt.Fprintf(w, "%10d  file; without the name section %d\n", m.size, m.size-m.nameSection)
}

// printFuncs lists the functions of one package, largest first.
func printFuncs(w io.Writer, m module, pkg string) {
	var fs []body
	total := 0
	for _, f := range m.bodies {
		if packageOf(f.name, m.modules) == pkg {
			fs = append(fs, f)
			total += f.size
		}
	}
	slices.SortFunc(fs, func(a, b body) int { return cmp.Or(cmp.Compare(b.size, a.size), cmp.Compare(a.name, b.name)) })
	for _, f := range fs {
		fmt.Fprintf(w, "%8d  %s\n", f.size, f.name)
	}
	fmt.Fprintf(w, "%8d  total, %d functions\n", total, len(fs))
}

// packageOf returns the import path of the package a function belongs to.
// Go's linker writes names with every character but letters, digits, '_'
// and '.' turned into '_' ("encoding/json.(*decodeState).object" becomes
// "encoding_json.__decodeState_.object"), so the path is read back: a name
// that starts with one of the modules' paths (mangled) is in that module,
// and every other '_' before the first '.' stood for a '/'. Linker-made
// functions ("type:.eq.…") keep their prefix; runtime helpers without a
// dot are listed under their own name.
func packageOf(sym string, modules []string) string {
	for _, mod := range modules {
		rest, ok := strings.CutPrefix(sym, mangle(mod))
		if !ok || rest == "" {
			continue
		}
		if rest[0] == '.' {
			return mod
		}
		if rest[0] == '_' {
			if i := strings.IndexByte(rest, '.'); i > 0 {
				return mod + "/" + strings.ReplaceAll(rest[1:i], "_", "/")
			}
		}
	}
	i := strings.IndexByte(sym, '.')
	if i < 0 {
		return sym
	}
	if p, ok := strings.CutSuffix(sym[:i], "_"); ok {
		return p + ":"
	}
	return strings.ReplaceAll(sym[:i], "_", "/")
}

// mangle spells a path the way the linker's name section does.
func mangle(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '.' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, s)
}

// modulesOf finds the module paths of the build information a Go binary
// carries ("mod\tpath\t…" and "dep\tpath\t…" lines), longest first, so a
// module nested in another's path is matched before it.
func modulesOf(b []byte) []string {
	var mods []string
	for _, key := range []string{"\nmod\t", "\ndep\t"} {
		rest := b
		for {
			i := bytes.Index(rest, []byte(key))
			if i < 0 {
				break
			}
			rest = rest[i+len(key):]
			if j := bytes.IndexAny(rest, "\t\n"); j > 0 {
				mods = append(mods, string(rest[:j]))
			}
		}
	}
	slices.SortFunc(mods, func(a, b string) int { return cmp.Or(cmp.Compare(len(b), len(a)), cmp.Compare(a, b)) })
	return slices.Compact(mods)
}

// rollUp shortens an import path to its first depth elements.
func rollUp(pkg string, depth int) string {
	if depth <= 0 {
		return pkg
	}
	parts := strings.SplitN(pkg, "/", depth+1)
	if len(parts) > depth {
		parts = parts[:depth]
	}
	return strings.Join(parts, "/")
}
