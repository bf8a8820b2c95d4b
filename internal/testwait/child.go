// Package testwait bounds what the module's tests wait for: a child
// process, a channel, a call that blocks. A test that waits for something
// that never comes fails within the bound and says what it waited for,
// instead of hanging until the test binary's -timeout panic; and a child
// process never outlives its test.
//
// It exists because `go test` is run from places a test cannot choose:
// under nohup, from a script without job control (SIGINT ignored), with no
// terminal and no standard input. A child inherits ignored signals, so a
// test that stops its child with a signal would wait forever, and the
// child, orphaned at the panic, would run on.
package testwait

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// Reap is how long a killed child may take to be reaped. SIGKILL cannot
// be caught, so only a process stuck in the kernel (uninterruptible sleep)
// takes longer; past it the wait gives up rather than hang.
const Reap = 10 * time.Second

// margin is kept between a wait's bound and the test binary's -timeout,
// so that the test fails with the child's output, not with the timeout
// panic (which runs no cleanup).
const margin = 10 * time.Second

// Signals are the signals a child always starts with at their default
// disposition, whatever the test binary inherited: the ones the tests
// send to stop a child. A user may run the suite with some of them
// ignored: nohup ignores SIGHUP, a shell without job control starts a
// background command with SIGINT ignored.
var Signals = []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP}

// A Child is a process started by Start: in its own process group, which
// is killed whole past a wait's bound and when the test ends; with the
// signals in Signals at their default dispositions; and (on Linux) killed
// by the kernel if the test binary dies first.
type Child struct {
	tb   testing.TB
	cmd  *exec.Cmd
	out  *output
	pid  int
	done chan struct{} // closed once the child is reaped
	err  error         // cmd.Wait's, set before done is closed
}

// Start starts cmd as a Child, failing the test if it cannot start or if
// a signal in Signals would reach it ignored. What the child prints to a
// standard output or error left nil, or given as a writer that is not a
// file, is also kept for the messages of a failed wait (Output).
func Start(tb testing.TB, cmd *exec.Cmd) *Child {
	tb.Helper()
	c, err := start(tb, cmd)
	if err != nil {
		tb.Fatalf("testwait: starting %s: %v", cmd, err)
	}
	tb.Cleanup(c.cleanup)
	return c
}

// Run starts cmd as a Child and waits at most d for it (see Wait).
func Run(tb testing.TB, cmd *exec.Cmd, d time.Duration) error {
	tb.Helper()
	return Start(tb, cmd).Wait(d)
}

// RunMain runs cmd as a Child where there is no test to fail (TestMain)
// and waits at most d for it. Past d it kills the child's process group
// and returns an error with what the child printed. Meanwhile a signal
// that ends the process ends the child's group first, as for a test's
// children.
func RunMain(cmd *exec.Cmd, d time.Duration) error {
	c, err := start(nil, cmd)
	if err != nil {
		return fmt.Errorf("starting %s: %w", cmd, err)
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-c.done:
		return c.err
	case <-timer.C:
		return fmt.Errorf("%s did not exit within %v; %s; it printed:\n%s", cmd, d, c.kill(), c.Output())
	}
}

func start(tb testing.TB, cmd *exec.Cmd) (*Child, error) {
	c := &Child{tb: tb, cmd: cmd, out: new(output), done: make(chan struct{})}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = new(syscall.SysProcAttr)
	}
	// Its own group, so that a kill reaches whatever it started too.
	cmd.SysProcAttr.Setpgid, cmd.SysProcAttr.Pgid = true, 0
	dieWithParent(cmd.SysProcAttr)
	cmd.Stdout = c.out.tee(cmd.Stdout, "standard output")
	cmd.Stderr = c.out.tee(cmd.Stderr, "standard error")
	if cmd.WaitDelay == 0 {
		// Wait also waits for the copy of its output: a process outside
		// its group holding the pipe must not hold the wait.
		cmd.WaitDelay = Reap
	}
	if err := children.join(); err != nil {
		return nil, err
	}
	started := make(chan error, 1)
	go func() {
		defer children.leave(c)
		// The kernel kills the child (Pdeathsig) when the thread that
		// started it exits, not the process; Go ends threads that a
		// goroutine locked and left locked. Hold this one until the child
		// is reaped.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		c.pid = cmd.Process.Pid
		children.add(c)
		started <- nil
		switch err := awaitExit(c.pid); {
		case err == nil:
			// Whatever the leader left in its group goes with it. The
			// group id is still the unreaped leader's, so no other group
			// can have taken it.
			_ = syscall.Kill(-c.pid, syscall.SIGKILL)
		case !errors.Is(err, errors.ErrUnsupported):
			c.out.note("testwait: waiting for its exit: %v", err)
		}
		c.err = cmd.Wait()
		close(c.done)
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return c, nil
}

// Done is closed once the child has exited and been reaped: for a test
// that checks it is still running a while on.
func (c *Child) Done() <-chan struct{} { return c.done }

// Pid is the child's process id, which is also its process group's.
func (c *Child) Pid() int { return c.pid }

// Output is what the child printed, so far: its standard output and
// error, interleaved as written, the first 64 KiB of them.
func (c *Child) Output() string { return c.out.String() }

// Signal sends sig to the child (not its group). Sending to a child that
// has already exited is an error that says so, with what it printed.
func (c *Child) Signal(sig os.Signal) error {
	if err := c.cmd.Process.Signal(sig); err != nil {
		if errors.Is(err, os.ErrProcessDone) {
			select {
			case <-c.done:
				return fmt.Errorf("%s had exited (%v) before it was sent %v; it printed:\n%s", c.cmd, c.err, sig, c.Output())
			case <-time.After(Reap): // exited, and then stuck in the wait for its output's copy
				return fmt.Errorf("%s had exited before it was sent %v; it printed:\n%s", c.cmd, sig, c.Output())
			}
		}
		return fmt.Errorf("sending %v to %s: %w", sig, c.cmd, err)
	}
	return nil
}

// Wait waits at most d for the child to exit and returns what
// exec.Cmd.Wait returns. Past d, or past the test binary's deadline less a
// margin, it kills the child's process group and fails the test with what
// the child printed: like testing.TB.Fatalf, it must be called from the
// test's goroutine.
func (c *Child) Wait(d time.Duration) error {
	c.tb.Helper()
	d = bounded(c.tb, d)
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-c.done:
		return c.err
	case <-timer.C:
	}
	c.tb.Fatalf("testwait: %s did not exit within %v; %s; it printed:\n%s", c.cmd, d, c.kill(), c.Output())
	return nil
}

// kill kills the child's process group and waits at most Reap for the
// child to be reaped; it says what happened.
func (c *Child) kill() string {
	select {
	case <-c.done: // reaped: its group id may be another's by now
		return "it exited meanwhile"
	default:
	}
	err := syscall.Kill(-c.pid, syscall.SIGKILL)
	select {
	case <-c.done:
		return "killed it with its process group"
	case <-time.After(Reap):
		return fmt.Sprintf("killed its process group (%v) but it was still not reaped %v later", err, Reap)
	}
}

// cleanup, run when the test ends however it ends, kills a child still
// running.
func (c *Child) cleanup() {
	select {
	case <-c.done:
		return
	default:
	}
	c.tb.Logf("testwait: %s was still running when the test ended: %s; it printed:\n%s", c.cmd, c.kill(), c.Output())
}

// bounded caps d so that a wait ends before the test binary's deadline
// (go test -timeout), whose panic would leave no output and no cleanup.
func bounded(tb testing.TB, d time.Duration) time.Duration {
	if t, ok := tb.(interface{ Deadline() (time.Time, bool) }); ok {
		if end, ok := t.Deadline(); ok {
			d = min(d, max(time.Until(end)-margin, 0))
		}
	}
	return d
}

// registry counts the live children, for the handler of the signals in
// Signals. While any child is starting or running, the test binary
// handles those signals itself: a child then starts with them at their
// default dispositions, as exec resets a handled signal but keeps an
// ignored one.
type registry struct {
	mu      sync.Mutex
	n       int // children starting or running
	pids    map[*Child]int
	sigs    chan os.Signal
	stopped chan struct{}
}

var children registry

// join counts a child about to start; with the first one, the test binary
// takes the signals in Signals over. It fails if one would still reach a
// child ignored.
func (r *registry) join() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	before, err := ignoredSignals()
	if err != nil {
		return err
	}
	if r.n == 0 {
		r.sigs = make(chan os.Signal, len(Signals))
		r.stopped = make(chan struct{})
		r.pids = map[*Child]int{}
		var sigs []os.Signal
		was := map[os.Signal]bool{}
		for _, s := range Signals {
			sigs = append(sigs, s)
			was[s] = before&(1<<(s-1)) != 0
		}
		signal.Notify(r.sigs, sigs...)
		go r.forward(r.sigs, r.stopped, was)
	}
	r.n++
	after, err := ignoredSignals()
	if err == nil {
		err = stillIgnored(after)
	}
	if err != nil {
		r.release()
	}
	return err
}

// stillIgnored says which signals in Signals the mask of ignored signals
// holds after signal.Notify took them over, which would take a
// signal.Ignore meanwhile.
func stillIgnored(mask uint64) error {
	var still []string
	for _, s := range Signals {
		if mask&(1<<(s-1)) != 0 {
			still = append(still, s.String())
		}
	}
	if still == nil {
		return nil
	}
	return fmt.Errorf("signals ignored in the test binary stay ignored after signal.Notify (%s): "+
		"a child would inherit them ignored, and a test that stops it with one would wait for nothing",
		strings.Join(still, ", "))
}

func (r *registry) add(c *Child) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pids[c] = c.pid
}

// leave uncounts a child reaped, or that failed to start.
func (r *registry) leave(c *Child) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.pids, c)
	r.release()
}

// release uncounts a child; with the last one, the test binary's signals
// go back to what they were (an inherited ignore is restored).
func (r *registry) release() {
	r.n--
	if r.n == 0 {
		signal.Stop(r.sigs)
		close(r.stopped)
	}
}

// forward handles a signal the test binary gets while it has children:
// one it ignored before is ignored still (nohup go test … keeps running
// through a hangup); any other kills every child's group, then the test
// binary by the same signal, as if it had no handler.
func (r *registry) forward(sigs <-chan os.Signal, stopped <-chan struct{}, ignored map[os.Signal]bool) {
	for {
		select {
		case <-stopped:
			return
		case s := <-sigs:
			if ignored[s] {
				continue
			}
			r.mu.Lock()
			for _, pid := range r.pids {
				_ = syscall.Kill(-pid, syscall.SIGKILL)
			}
			r.mu.Unlock()
			signal.Reset(s)
			_ = syscall.Kill(os.Getpid(), s.(syscall.Signal))
			return
		}
	}
}

// output keeps the first 64 KiB a child prints, from both its outputs.
type output struct {
	mu    sync.Mutex
	b     []byte
	files []string // outputs that went to a file, not kept here
	full  atomic.Bool
}

func (o *output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if room := 64<<10 - len(o.b); room > 0 {
		o.b = append(o.b, p[:min(room, len(p))]...)
	} else {
		o.full.Store(true)
	}
	return len(p), nil
}

func (o *output) note(format string, args ...any) {
	fmt.Fprintf(o, "\n"+format+"\n", args...)
}

func (o *output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	s := string(o.b)
	if o.full.Load() {
		s += "\n[… more, not kept]"
	}
	for _, f := range o.files {
		s += "\n[" + f + "]"
	}
	return s
}

// tee returns the writer for one of the child's outputs: o, or what the
// test gave and o. A file the test gave is left as it is, since what the
// child's descriptor is matters to the test (a pipe would change that).
func (o *output) tee(w io.Writer, name string) io.Writer {
	switch w := w.(type) {
	case nil:
		return o
	case *os.File:
		o.files = append(o.files, name+" went to "+w.Name())
		return w
	default:
		return writers{w, o}
	}
}

// writers writes to both, as io.MultiWriter does, but keeps writing to
// the second when the first fails.
type writers [2]io.Writer

func (ws writers) Write(p []byte) (int, error) {
	n, err := ws[0].Write(p)
	_, _ = ws[1].Write(p)
	return n, err
}
