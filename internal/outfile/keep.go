package outfile

import (
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
