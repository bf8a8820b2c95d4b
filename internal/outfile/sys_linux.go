//go:build linux

package outfile

import (
	"errors"

	"golang.org/x/sys/unix"
)

func fcntlFlags(fd int) (int, error) { return unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0) }

// renameNoReplace renames from to to unless to exists, in one step
// (renameat2 RENAME_NOREPLACE); on a file system that cannot, it falls
// back to linkNoReplace.
func renameNoReplace(from, to string) error {
	err := unix.Renameat2(unix.AT_FDCWD, from, unix.AT_FDCWD, to, unix.RENAME_NOREPLACE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.ENOTSUP) {
		return linkNoReplace(from, to)
	}
	return err
}
