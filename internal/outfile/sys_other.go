//go:build !linux

package outfile

import "errors"

func fcntlFlags(int) (int, error) { return 0, errors.ErrUnsupported }

func renameNoReplace(from, to string) error { return linkNoReplace(from, to) }
