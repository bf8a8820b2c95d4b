package outfile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// KeepInTemp writes what write produces to a new file in the temporary
// directory, named "<prefix>-<path's base>-<random><path's extension>", and
// returns its name: the place of last resort for an output that could
// not be written where it was asked for, so that a result is not lost
// after the work. A file it created and could not complete is removed.
func KeepInTemp(prefix, path string, write func(io.Writer) error) (string, error) {
	base := FitName(filepath.Base(path), len(prefix)+len("-")+len("-")+10) // CreateTemp's random part
	ext := filepath.Ext(base)
	f, err := os.CreateTemp("", prefix+"-"+base[:len(base)-len(ext)]+"-*"+ext)
	if err != nil {
		return "", err
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name()) // ours: created just above
		return "", err
	}
	return f.Name(), nil
}

// KeepAfter keeps what write produces in the temporary directory
// (KeepInTemp) after failed, the failure to put it at path: it returns a
// *KeptError that wraps failed and names the file kept, or failed itself
// if the output could not be kept either.
func KeepAfter(failed error, prefix, path string, write func(io.Writer) error) error {
	kept, err := KeepInTemp(prefix, path, write)
	if err != nil {
		return failed
	}
	return &KeptError{Err: failed, Path: kept}
}

// A KeptError is an output that could not be put where it was asked for
// (Err says why) and was kept in the file Path instead. Its message names
// that file: a user must learn where the result went, even when the
// failure was only a cancellation.
type KeptError struct {
	Err  error
	Path string
}

func (e *KeptError) Error() string {
	return fmt.Sprintf("%v; the output is saved in %s instead", e.Err, e.Path)
}

func (e *KeptError) Unwrap() error { return e.Err }
