package testwait

import (
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeTB records the failures of a helper under test instead of failing
// the test; its Fatalf ends the goroutine, as testing.T's does.
type fakeTB struct {
	testing.TB // the real test, for Cleanup and the rest
	mu         sync.Mutex
	fatals     []string
}

func (f *fakeTB) Helper() {}

func (f *fakeTB) Fatalf(format string, args ...any) {
	f.mu.Lock()
	f.fatals = append(f.fatals, fmt.Sprintf(format, args...))
	f.mu.Unlock()
	runtime.Goexit()
}

func (f *fakeTB) failures() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.fatals...)
}

// returns runs f on a goroutine and reports whether it returned, rather
// than ended with runtime.Goexit (a fakeTB's Fatalf).
func returns(t *testing.T, f func()) bool {
	t.Helper()
	ok := make(chan bool, 1)
	go func() {
		returned := false
		defer func() { ok <- returned }()
		f()
		returned = true
	}()
	return Recv(t, ok, time.Minute, "the end of the call under test")
}

// pids waits for a stubborn child's line and returns the pids it names.
func pids(t *testing.T, c *Child) []int {
	t.Helper()
	line := regexp.MustCompile(`stubborn: child (\d+)(?: grandchild (\d+))?\n`)
	for end := time.Now().Add(time.Minute); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if m := line.FindStringSubmatch(c.Output()); m != nil {
			var ps []int
			for _, s := range m[1:] {
				if s != "" {
					p, err := strconv.Atoi(s)
					require.NoError(t, err)
					ps = append(ps, p)
				}
			}
			return ps
		}
	}
	t.Fatalf("no line from the stubborn child within a minute; it printed:\n%s", c.Output())
	return nil
}

// TestAChildThatIgnoresEverySignalIsKilledAtItsBound: a child that
// ignores every signal, with a grandchild that does too, fails the wait
// within its bound, with what it printed, and leaves no process.
func TestAChildThatIgnoresEverySignalIsKilledAtItsBound(t *testing.T) {
	fake := &fakeTB{TB: t}
	c := Start(fake, helper("stubborn-group"))
	ps := pids(t, c)
	require.Len(t, ps, 2, "a child and its grandchild")
	require.Equal(t, c.Pid(), ps[0])
	for _, s := range Signals {
		require.NoError(t, c.Signal(s), "sent, and ignored")
	}

	const bound = 500 * time.Millisecond
	start := time.Now()
	assert.False(t, returns(t, func() { _ = c.Wait(bound) }), "the wait fails the test")
	took := time.Since(start)
	assert.GreaterOrEqual(t, took, bound)
	assert.Less(t, took, bound+5*time.Second, "killed and reaped at once")
	f := fake.failures()
	require.Len(t, f, 1)
	assert.Contains(t, f[0], "did not exit within 500ms; killed it with its process group; it printed:\n")
	assert.Contains(t, f[0], fmt.Sprintf("stubborn: child %d grandchild %d\n", ps[0], ps[1]), "what it printed")
	for _, p := range ps {
		assert.True(t, gone(p, 5*time.Second), "process %d is still running", p)
	}
	err := c.Signal(syscall.SIGINT)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "had exited (signal: killed) before it was sent interrupt")
}

// TestCleanupKillsAChildStillRunning: a test that ends, here by passing,
// with its child still running leaves no process.
func TestCleanupKillsAChildStillRunning(t *testing.T) {
	var ps []int
	t.Run("leaves its child running", func(t *testing.T) {
		ps = pids(t, Start(t, helper("stubborn-group")))
	})
	require.Len(t, ps, 2)
	for _, p := range ps {
		assert.True(t, gone(p, 5*time.Second), "process %d is still running", p)
	}
}

// TestADyingTestBinaryTakesItsChildAlong: at the -timeout panic no cleanup
// runs; the kernel kills the child (Pdeathsig) when the binary dies.
func TestADyingTestBinaryTakesItsChildAlong(t *testing.T) {
	var out strings.Builder
	cmd := helper("orphaner")
	cmd.Stdout = &out
	err := Run(t, cmd, time.Minute)
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, out.String())
	require.Equal(t, 2, exit.ExitCode(), out.String())
	m := regexp.MustCompile(`stubborn: child (\d+)\n`).FindStringSubmatch(out.String())
	require.NotNil(t, m, out.String())
	p, err := strconv.Atoi(m[1])
	require.NoError(t, err)
	assert.True(t, gone(p, 5*time.Second), "the orphaner's child %d is still running", p)
}

// TestChildrenStartWithDefaultDispositions: Signals reach a child at their
// default dispositions, also when the test binary inherited them ignored
// (here from a shell's trap, as under nohup).
func TestChildrenStartWithDefaultDispositions(t *testing.T) {
	var want uint64
	for _, s := range Signals {
		want |= 1 << (s - 1)
	}
	var out strings.Builder
	cmd := helper("dispositions")
	cmd.Stdout = &out
	require.NoError(t, Run(t, cmd, time.Minute))
	var mask uint64
	_, err := fmt.Sscanf(out.String(), "SigIgn %x\n", &mask)
	require.NoError(t, err, out.String())
	assert.Zero(t, mask&want, "ignored in the child: %x", mask&want)

	out.Reset()
	cmd = exec.Command("sh", "-c", `trap '' INT HUP TERM; exec "$0"`, helper("").Path)
	cmd.Env = helper("relay").Env
	cmd.Stdout = &out
	require.NoError(t, Run(t, cmd, time.Minute), out.String())
	var relay uint64
	_, err = fmt.Sscanf(out.String(), "relay SigIgn %x\nchild SigIgn %x\n", &relay, &mask)
	require.NoError(t, err, out.String())
	assert.Equal(t, uint64(1<<(syscall.SIGINT-1)|1<<(syscall.SIGHUP-1)), relay&want,
		"the relay inherited SIGINT and SIGHUP ignored (Go's runtime takes SIGTERM over)")
	assert.Zero(t, mask&want, "ignored in the relay's child: %x", mask&want)
}

// TestWaitReturnsWhatTheChildDid: a child that ends within the bound gives
// its exit status, and what it printed is kept, also when the test reads
// it too.
func TestWaitReturnsWhatTheChildDid(t *testing.T) {
	var stdout strings.Builder
	cmd := helper("exit3")
	cmd.Stdout = &stdout
	c := Start(t, cmd)
	err := c.Wait(time.Minute)
	var exit *exec.ExitError
	require.True(t, errors.As(err, &exit), "%v", err)
	assert.Equal(t, 3, exit.ExitCode())
	assert.Equal(t, "to standard output\n", stdout.String())
	assert.Contains(t, c.Output(), "to standard output\n")
	assert.Contains(t, c.Output(), "to standard error\n")
}

// TestRecvAndDoFailNamingWhatTheyWaitedFor: a wait that gets nothing
// fails within its bound and names what it waited for.
func TestRecvAndDoFailNamingWhatTheyWaitedFor(t *testing.T) {
	fake := &fakeTB{TB: t}
	never := make(chan int)
	start := time.Now()
	assert.False(t, returns(t, func() { Recv(fake, never, 100*time.Millisecond, "the writer's result") }))
	assert.Less(t, time.Since(start), 5*time.Second)

	release := make(chan struct{})
	defer close(release) // the call Do gave up on returns, for the leak check
	assert.False(t, returns(t, func() { Do(fake, 100*time.Millisecond, "the join", func() { <-release }) }))
	assert.Equal(t, []string{
		"testwait: the writer's result did not come within 100ms",
		"testwait: the join did not return within 100ms",
	}, fake.failures())

	ready := make(chan int, 1)
	ready <- 7
	assert.Equal(t, 7, Recv(t, ready, time.Minute, "seven"))
	Do(t, time.Minute, "a call that returns", func() {})
}

// TestAnIgnoreThatStaysIsNamed: were a signal still ignored once the test
// binary took it over, Start fails at once, naming it.
func TestAnIgnoreThatStaysIsNamed(t *testing.T) {
	assert.NoError(t, stillIgnored(1<<(syscall.SIGQUIT-1)), "not one of Signals")
	err := stillIgnored(1<<(syscall.SIGHUP-1) | 1<<(syscall.SIGINT-1))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "stay ignored after signal.Notify (interrupt, hangup)")
}

// TestRunMainKillsAChildPastItsBound: where there is no test (TestMain), a
// stubborn child past its bound is an error with its output, and leaves
// no process.
func TestRunMainKillsAChildPastItsBound(t *testing.T) {
	var out strings.Builder
	cmd := helper("stubborn-group")
	cmd.Stdout = &out
	start := time.Now()
	err := RunMain(cmd, 3*time.Second) // time enough to print its line, on a busy machine too
	require.Error(t, err)
	assert.Less(t, time.Since(start), 8*time.Second)
	assert.Contains(t, err.Error(), "did not exit within 3s; killed it with its process group; it printed:\n")
	m := regexp.MustCompile(`stubborn: child (\d+) grandchild (\d+)\n`).FindStringSubmatch(out.String())
	require.NotNil(t, m, "its line: %q", out.String())
	for _, s := range m[1:] {
		p, err := strconv.Atoi(s)
		require.NoError(t, err)
		assert.True(t, gone(p, 5*time.Second), "process %d is still running", p)
	}

	err = RunMain(helper("exit3"), time.Minute)
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	assert.Equal(t, 3, exit.ExitCode())
}
