package testwait

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// dieWithParent has the kernel kill the child if the test binary dies
// first: at the -timeout panic no cleanup runs.
func dieWithParent(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGKILL }

// awaitExit returns once the process pid has exited, without reaping it:
// until it is reaped its pid, and so its process group id, stay taken.
func awaitExit(pid int) error {
	for {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != syscall.EINTR {
			return err
		}
	}
}

// ignoredSignals is the mask of the signals this process ignores (bit
// n-1 for signal n), as the kernel has it: what a child would inherit.
func ignoredSignals() (uint64, error) {
	return ignoredIn("/proc/self/status")
}

// ignoredIn reads the SigIgn line of a /proc/PID/status file.
func ignoredIn(status string) (uint64, error) {
	f, err := os.Open(status)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if hex, ok := strings.CutPrefix(s.Text(), "SigIgn:"); ok {
			return strconv.ParseUint(strings.TrimSpace(hex), 16, 64)
		}
	}
	if err := s.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("%s has no SigIgn line", status)
}
