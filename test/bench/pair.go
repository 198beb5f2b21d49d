package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/test/harness"
)

// pairColdStarts is `go run ./test/bench -pair DIR…`: the cold start of
// several builds of the Worker side by side, each a folder that `make build`
// wrote (build/, a baseline's build/baseline/build, a copy), under workerd
// alone with each configuration format. Every round starts each build in
// each format once, in an order that rotates, so that the machine's moods
// fall on all alike; the report gives each one's medians and the median of
// the paired differences, with a bootstrap 95% interval, against the first
// build in the same format and against the same build with the binary
// configuration. Two figures per start: the wall time from
// the new process to the first /mcp answer (tools/list), and workerd's CPU
// time by then (all its threads, from /proc: Linux only), which a shared
// machine disturbs less; beside them workerd's minor page faults by then,
// and the Go instance's own start as /healthz tells it (the gateway's
// builds).
func pairColdStarts(ctx context.Context, builds []string, rounds int, w io.Writer) error {
	env, err := startSideBySide(ctx)
	if err != nil {
		return err
	}
	defer env.stop()
	root, compat := env.root, env.compat
	var targets []pairTarget
	for i, build := range builds {
		wd, err := env.prepare(i, build)
		if err != nil {
			return err
		}
		for _, f := range []configFormat{binaryConfig, textConfig} {
			targets = append(targets, pairTarget{name: build, dir: wd, format: f})
		}
	}
	vars := env.gatewayVars()
	header := mcpHeaders(env.memos.Token)
	progress("%d rounds of %d cold starts", rounds, len(targets))
	for i := range rounds {
		for j := range targets {
			t := &targets[(i+j)%len(targets)]
			wk, err := t.dir.workerdWith(root, compat, vars, t.format)
			if err != nil {
				return err
			}
			total, _, err := wk.waitReady(ctx, listBody, header)
			var cpu time.Duration
			var faults int
			if err == nil {
				cpu, err = processCPU(wk.Pid())
			}
			if err == nil {
				faults, err = minorFaults(wk.Pid())
			}
			if h, herr := healthOf(ctx, wk.URL); err == nil && herr == nil && h.startupMs > 0 {
				t.goStart = append(t.goStart, time.Duration(h.startupMs*float64(time.Millisecond)))
			}
			wk.Stop()
			if err != nil {
				return err
			}
			t.wall, t.cpu, t.faults = append(t.wall, total), append(t.cpu, cpu), append(t.faults, faults)
		}
		if (i+1)%10 == 0 {
			progress("round %d of %d", i+1, rounds)
		}
	}
	fmt.Fprintf(w, "cold starts: new workerd → first /mcp answer (tools/list), %d rounds, in turns; paired differences with bootstrap 95%% intervals\n\n", rounds)
	fmt.Fprintln(w, "| build | config | wall, median | workerd CPU, median | minor page faults, median | Go instance start, median | wall − first build's | CPU − first build's | wall − binary config's | CPU − binary config's |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|")
	for i, t := range targets {
		first, binary := i%2, i-i%2 // the first build in this format; this build, binary
		fmt.Fprintf(w, "| %s | %s | %s | %s | %d | %s | %s | %s | %s | %s |\n", t.name, t.format, ms(t.wall.p50()), ms(t.cpu.p50()), nearestRank(t.faults, 0.5), t.goStart.String(),
			pairedDiff(targets, i, first, pairWall), pairedDiff(targets, i, first, pairCPU),
			pairedDiff(targets, i, binary, pairWall), pairedDiff(targets, i, binary, pairCPU))
	}
	return nil
}

// sideBySide is what make bench, -pair, -calls and -compiled start from:
// the repository, a temporary folder, the compatibility date of
// wrangler.toml and a Memos of its own, with a fresh data folder.
type sideBySide struct {
	root, dir, compat string
	memos             *harness.Memos
}

func startSideBySide(ctx context.Context) (*sideBySide, error) {
	root, err := harness.RepoRoot()
	if err != nil {
		return nil, err
	}
	bin, err := harness.MemosBinary()
	if err != nil {
		return nil, err
	}
	compat, err := compatibilityDate(root)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "memos-mcp-edge-side-by-side-")
	if err != nil {
		return nil, err
	}
	progress("starting Memos (fresh data folder)")
	memos, err := harness.StartMemos(ctx, bin, dir)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return &sideBySide{root: root, dir: dir, compat: compat, memos: memos}, nil
}

// prepare makes the i-th build named, a folder make build wrote, a Worker
// with its deploy bundle.
func (s *sideBySide) prepare(i int, build string) (workerDir, error) {
	files, err := workerFiles(build)
	if err != nil {
		return workerDir{}, fmt.Errorf("%s: %w", build, err)
	}
	wd, err := writeWorker(s.dir, "build"+strconv.Itoa(i), "worker.mjs", s.compat, files, "")
	if err != nil {
		return workerDir{}, err
	}
	_, _, err = dryRun(s.root, wd)
	return wd, err
}

// gatewayVars are the gateway's settings for this Memos, on loopback.
func (s *sideBySide) gatewayVars() map[string]string {
	return map[string]string{"MEMOS_URL": s.memos.URL, "ALLOWED_HOSTS": "localhost,127.0.0.1,[::1]"}
}

func (s *sideBySide) stop() {
	s.memos.Stop()
	os.RemoveAll(s.dir)
}

// pairTarget is one build in one configuration format, with its figures.
type pairTarget struct {
	name      string
	dir       workerDir
	format    configFormat
	wall, cpu sample
	faults    []int  // workerd's minor page faults by its first answer
	goStart   sample // the instance's startupMs from /healthz, where it has one
}

// processCPU returns the CPU time that process pid's threads have spent so
// far (Linux's /proc/PID/task/*/schedstat: nanoseconds on a CPU first).
func processCPU(pid int) (time.Duration, error) {
	tasks, err := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*", "schedstat"))
	if err != nil || len(tasks) == 0 {
		return 0, errors.New("no /proc schedstat for workerd (Linux only)")
	}
	var total time.Duration
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue // a thread that ended
		}
		ns, err := strconv.ParseInt(strings.Fields(string(b))[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", t, err)
		}
		total += time.Duration(ns)
	}
	return total, nil
}

// minorFaults returns how many minor page faults process pid has taken so
// far, from Linux's /proc/PID/stat. Each one is a page the process touched
// for the first time, which a cold start pays for.
func minorFaults(pid int) (int, error) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, errors.New("no /proc stat for workerd (Linux only)")
	}
	return statMinorFaults(b)
}

// statMinorFaults reads minflt, the tenth field of a /proc/PID/stat line,
// counting after the command name's closing parenthesis: the name itself
// may hold spaces and parentheses.
func statMinorFaults(stat []byte) (int, error) {
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	if len(fields) < 8 {
		return 0, errors.New("/proc stat: too few fields")
	}
	return strconv.Atoi(fields[7])
}

const (
	pairWall = iota
	pairCPU
)

// pairedDiff formats the median of targets[i]'s figure minus targets[j]'s
// in the same round, with a bootstrap 95% interval of that median (2,000
// resamples); "—" for a target against itself.
func pairedDiff(targets []pairTarget, i, j, figure int) string {
	if i == j {
		return "—"
	}
	a, b := targets[i].wall, targets[j].wall
	if figure == pairCPU {
		a, b = targets[i].cpu, targets[j].cpu
	}
	d := make(sample, len(a))
	for k := range a {
		d[k] = a[k] - b[k]
	}
	rng := rand.New(rand.NewPCG(1, 2))
	medians := make(sample, 2000)
	re := make(sample, len(d))
	for k := range medians {
		for n := range re {
			re[n] = d[rng.IntN(len(d))]
		}
		medians[k] = re.p50()
	}
	slices.Sort(medians)
	return fmt.Sprintf("%+.1f ms (%+.1f to %+.1f)", msf(d.p50()), msf(medians.quantile(0.025)), msf(medians.quantile(0.975)))
}

func msf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
