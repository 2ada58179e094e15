package agents

import (
	"io"
	"os"
)

func pipe() (io.Reader, io.WriteCloser) {
	r, w, err := os.Pipe()
	if err != nil {
		panic(err)
	}
	return r, w
}
