package testwait

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// modeEnv makes the test binary a child of one of the tests instead (see
// childMain): the children the tests need are built with the package.
const modeEnv = "TESTWAIT_CHILD"

// TestMain also checks that no goroutine outlives the tests: the
// signal handler this package runs while it has children must stop with
// the last one.
func TestMain(m *testing.M) {
	if mode := os.Getenv(modeEnv); mode != "" {
		os.Exit(childMain(mode))
	}
	goleak.VerifyTestMain(m)
}

// helper is a command running this test binary as the child mode.
func helper(mode string) *exec.Cmd {
	self, err := os.Executable()
	if err != nil {
		panic(err) // Linux always knows: /proc/self/exe
	}
	cmd := exec.Command(self)
	// In a -race build a child that exits 0 would first sleep a second
	// (atexit_sleep_ms), for reports no child here makes.
	cmd.Env = append(os.Environ(), modeEnv+"="+mode, "GORACE=atexit_sleep_ms=0")
	return cmd
}

func childMain(mode string) int {
	switch mode {
	case "stubborn", "stubborn-group":
		// A broken child: it ignores every signal that can be ignored;
		// stubborn-group also starts a stubborn grandchild in its group.
		signal.Ignore()
		line := fmt.Sprintf("stubborn: child %d", os.Getpid())
		if mode == "stubborn-group" {
			g := helper("stubborn")
			g.Stdout = os.Stdout // holding the pipe Wait reads, as a daemon might
			if err := g.Start(); err != nil {
				fmt.Println("starting the grandchild:", err)
				return 1
			}
			line += fmt.Sprintf(" grandchild %d", g.Process.Pid)
		}
		fmt.Println(line)
		for {
			time.Sleep(time.Hour)
		}
	case "dispositions":
		mask, err := ignoredSignals()
		if err != nil {
			fmt.Println(err)
			return 1
		}
		fmt.Printf("SigIgn %x\n", mask)
		return 0
	case "relay":
		return relay()
	case "orphaner":
		// A test binary that dies as at its -timeout panic, leaving its
		// stubborn child to the kernel's Pdeathsig.
		c, err := start(procTB{}, helper("stubborn"))
		if err != nil {
			fmt.Println(err)
			return 1
		}
		fmt.Printf("started %d\n", c.Pid())
		for !strings.Contains(c.Output(), "stubborn: child") {
			time.Sleep(10 * time.Millisecond)
		}
		fmt.Print(c.Output())
		return 2
	case "exit3":
		fmt.Fprintln(os.Stdout, "to standard output")
		fmt.Fprintln(os.Stderr, "to standard error")
		return 3
	}
	fmt.Println("unknown mode", mode)
	return 1
}

// relay runs under a shell that ignores SIGINT and SIGHUP: it prints its
// own ignored signals and those of the child it starts with Start.
func relay() int {
	own, err := ignoredSignals()
	if err != nil {
		fmt.Println(err)
		return 1
	}
	fmt.Printf("relay SigIgn %x\n", own)
	var out strings.Builder
	cmd := helper("dispositions")
	cmd.Stdout = &out
	c, err := start(procTB{}, cmd)
	if err != nil {
		fmt.Println("starting the child:", err)
		return 1
	}
	if err := c.Wait(time.Minute); err != nil {
		fmt.Println("the child:", err, c.Output())
		return 1
	}
	fmt.Print("child ", out.String())
	return 0
}

// procTB is the testing.TB of a child mode, where there is no test: a
// fatal error ends the process.
type procTB struct{ testing.TB }

func (procTB) Helper()          {}
func (procTB) Cleanup(f func()) {}
func (procTB) Logf(format string, args ...any) {
	fmt.Printf(format+"\n", args...)
}
func (procTB) Fatalf(format string, args ...any) {
	fmt.Printf(format+"\n", args...)
	os.Exit(4)
}

// gone reports whether process pid has ended within d: no such process,
// or a zombie (its new parent, init, has yet to reap it). A pid reused
// in that time would read as running: a false failure, never a false pass.
func gone(pid int, d time.Duration) bool {
	for end := time.Now().Add(d); ; time.Sleep(10 * time.Millisecond) {
		if syscall.Kill(pid, 0) == syscall.ESRCH {
			return true
		}
		if stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
			// pid (comm) state ...: comm may hold spaces and parentheses.
			if i := strings.LastIndexByte(string(stat), ')'); i > 0 && strings.HasPrefix(string(stat[i:]), ") Z") {
				return true
			}
		}
		if time.Now().After(end) {
			return false
		}
	}
}
