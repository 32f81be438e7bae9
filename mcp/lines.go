package mcp

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
)

// ReadLines reads newline-delimited messages from r on a goroutine of its
// own, as the stdio transports read them (the server's, and the bridge's
// side that faces the Host). Each line comes without its terminator; a
// line over MaxMessageBytes is consumed and comes as nil, for the caller
// to refuse as oversized; empty lines are skipped. The first read error
// (io.EOF at the end) comes on errs, after every line before it. The
// goroutine stops when ctx is done.
func ReadLines(ctx context.Context, r io.Reader) (lines <-chan []byte, errs <-chan error) {
	out := make(chan []byte)
	errc := make(chan error, 1)
	go func() {
		br := bufio.NewReaderSize(r, 64<<10)
		for {
			line, err := readLine(br, MaxMessageBytes)
			if errors.Is(err, errLineTooLong) {
				line, err = nil, nil
			} else if len(line) == 0 && err == nil {
				continue
			}
			if err == nil || len(line) > 0 {
				select {
				case out <- line:
				case <-ctx.Done():
					return
				}
			}
			if err != nil {
				errc <- err
				return
			}
		}
	}()
	return out, errc
}

var errLineTooLong = errors.New("mcp: line too long")

// readLine returns the next line without its terminator. A line over
// limit is consumed and reported as errLineTooLong.
func readLine(br *bufio.Reader, limit int) ([]byte, error) {
	var buf []byte
	tooLong := false
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(buf)+len(chunk) > limit+2 {
				tooLong, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if tooLong {
			if err == nil {
				return nil, errLineTooLong
			}
			return nil, err
		}
		return bytes.TrimRight(buf, "\r\n"), err
	}
}
