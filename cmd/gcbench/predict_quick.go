package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/spf13/pflag"
	"golang.org/x/sys/unix"
)

// predict --quick: a small check that makes its own points. Its sizes
// keep it under a minute on 2 cores, the sweeps included.
var (
	quickWorkers     = "1,2,4,8"
	quickSweepArgs   = []string{"--backend", "native", "--mutex", "normal,pi", "--wake", "broadcast", "--modes", "serial,perjob,batch", "--major-heap", "64MiB", "--los", "16MiB", "--gcs", "20", "--warmup", "3"}
	quickRepeats     = 2 // sweeps of each grid: the measurement floor needs two
	quickCores       = []int{8, 16}
	quickMajor       = int64(256 << 20)
	quickLOS         = int64(64 << 20)
	quickCalibGCs    = 5
	quickSlowdownGCs = 20
	quickCalibration = 1
)

// errNoNative is the refusal of a check that needs the native backend in
// a build without it.
var errNoNative = errors.New("the native backend is unavailable in this build (it needs cgo on Linux): predict calibrates it and checks against its points")

// nativeGuard refuses predict when the build lacks the native backend.
func nativeGuard(available bool) error {
	if !available {
		return errNoNative
	}
	return nil
}

// applyQuick sets --quick's sizes on the flags the user left unset.
func (o *predictOptions) applyQuick(fs *pflag.FlagSet) {
	if !o.quick {
		return
	}
	set := func(name string, f func()) {
		if !fs.Changed(name) {
			f()
		}
	}
	set("calibrations", func() { o.calibrations = quickCalibration })
	set("cores", func() { o.cores = quickCores })
	set("major-heap", func() { o.major = quickMajor })
	set("los", func() { o.los = quickLOS })
	set("calibration-gcs", func() { o.calibrateGCs = quickCalibGCs })
	set("slowdown-gcs", func() { o.slowdownGCs = quickSlowdownGCs })
}

// quickSweeps is the sweeps --quick makes without --dir, each a
// directory under root with the command line after the program's name
// and whether it runs on one CPU: the grid on every core and on one,
// quickRepeats times each, alternating.
func quickSweeps(root string) (dirs []string, args [][]string, oneCPU []bool) {
	for r := 1; r <= quickRepeats; r++ {
		for _, one := range []bool{false, true} {
			name := fmt.Sprintf("n2_%d", r)
			if one {
				name = fmt.Sprintf("n1_%d", r)
			}
			d := filepath.Join(root, name)
			dirs = append(dirs, d)
			args = append(args, append([]string{"sweep", "--dir", d, "--workers", quickWorkers}, quickSweepArgs...))
			oneCPU = append(oneCPU, one)
		}
	}
	return dirs, args, oneCPU
}

// makeQuickPoints sweeps quickSweeps into a new temporary directory with
// this executable, and returns the directories and a function that
// removes them.
func makeQuickPoints(ctx context.Context, progress io.Writer) (dirs []string, remove func(), err error) {
	self, err := os.Executable()
	if err != nil {
		return nil, nil, fmt.Errorf("--quick: finding this executable to sweep with: %w", err)
	}
	root, err := os.MkdirTemp("", "gcbench-predict-quick-")
	if err != nil {
		return nil, nil, fmt.Errorf("--quick: %w", err)
	}
	remove = func() { os.RemoveAll(root) }
	dirs, args, oneCPU := quickSweeps(root)
	for i, a := range args {
		where := "every core"
		if oneCPU[i] {
			where = "one CPU"
		}
		fmt.Fprintf(progress, "gcbench predict --quick: sweep %d of %d (workers %s, %s) into %s\n", i+1, len(args), quickWorkers, where, dirs[i])
		if err := runSweep(ctx, self, a, oneCPU[i]); err != nil {
			remove()
			return nil, nil, fmt.Errorf("--quick: sweep %d of %d: %w", i+1, len(args), err)
		}
	}
	return dirs, remove, nil
}

// runSweep runs self with args, on the first CPU this process may use if
// oneCPU (as taskset -c would), its output kept for an error.
func runSweep(ctx context.Context, self string, args []string, oneCPU bool) error {
	cmd := exec.CommandContext(ctx, self, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := startOn(cmd, oneCPU); err != nil {
		return err
	}
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("%s %s: %w: %s", filepath.Base(self), strings.Join(args, " "), err, lastLine(out.String()))
	}
	return nil
}

// startOn starts cmd, on one CPU if oneCPU: a child inherits the CPU
// affinity of the thread that forks it (sched_setaffinity(2)), so the
// forking goroutine is locked to its thread, the thread is pinned to the
// first allowed CPU for the fork, and its mask is put back after.
func startOn(cmd *exec.Cmd, oneCPU bool) error {
	if !oneCPU {
		return cmd.Start()
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var saved, one unix.CPUSet
	if err := unix.SchedGetaffinity(0, &saved); err != nil {
		return fmt.Errorf("reading the CPU affinity: %w", err)
	}
	first := -1
	for c := 0; c < len(saved)*64 && first < 0; c++ {
		if saved.IsSet(c) {
			first = c
		}
	}
	if first < 0 {
		return errors.New("no CPU in this thread's affinity")
	}
	one.Set(first)
	if err := unix.SchedSetaffinity(0, &one); err != nil {
		return fmt.Errorf("pinning to CPU %d: %w", first, err)
	}
	startErr := cmd.Start()
	if err := unix.SchedSetaffinity(0, &saved); err != nil {
		// The thread stays pinned: end it with the goroutine rather than
		// hand it back to the scheduler.
		runtime.LockOSThread()
		return errors.Join(startErr, fmt.Errorf("restoring the CPU affinity: %w", err))
	}
	return startErr
}

// lastLine is s's last non-empty line.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
