package scaleout

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

// The local executor runs a plan's tasks in a few long-lived task
// processes, one a slot (`sluice task PLAN --serve`), instead of one
// process a task: a task then skips the process start, and it reuses the
// heap the slot's earlier tasks grew instead of faulting in fresh memory,
// which on a virtual machine costs as much as a third of a short task.
// Every task still takes its lease, writes its marker and logs to its own
// attempt's log, as a task process does.
//
// The executor writes a TaskRequest a line (JSON) to the process's
// standard input and waits for the line that answers it on its standard
// output: replyPrefix and the TaskReply (JSON). The process ends when its
// standard input does; a task it runs when its executor dies (kill -9)
// runs to its end, as an orphaned task process would.

// TaskRequest is one task the local executor hands a serving process.
type TaskRequest struct {
	Phase string `json:"phase"`
	Index int    `json:"index"`
	// Workers are the task's workers; 0 leaves the plan's.
	Workers int `json:"workers,omitempty"`
	// Log is the log's name, as the task's markers record it; LogFile
	// the file the task appends its output to (the same unless the log
	// goes to an object store when the task ends).
	Log     string `json:"log"`
	LogFile string `json:"log_file"`
}

// TaskReply answers a TaskRequest once the task ended.
type TaskReply struct {
	Phase string `json:"phase"`
	Index int    `json:"index"`
	Ran   bool   `json:"ran"`
	// Error is why the task failed; empty when it did not.
	Error string `json:"error,omitempty"`
}

// replyPrefix starts the line that answers a request: any other line on
// a serving process's standard output is not a reply.
const replyPrefix = "sluice-task-reply "

// TaskRunner runs one task of a serving process, its output to log.
type TaskRunner func(ctx context.Context, req TaskRequest, log io.Writer) (ran bool, err error)

// ServeTasks runs the tasks requested on in, one at a time, each with
// run, and answers each on out, until in ends. Each task's output goes
// to its request's LogFile; a task that fails has its error there too,
// as errorLine prints it, and in its reply. Only a request it cannot
// read or a reply it cannot write stops it.
func ServeTasks(ctx context.Context, in io.Reader, out io.Writer, run TaskRunner, errorLine func(io.Writer, error)) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var req TaskRequest
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
			return fmt.Errorf("task request %q: %w", sc.Text(), err)
		}
		reply := serveOne(ctx, req, run, errorLine)
		b, err := json.Marshal(reply)
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(out, "%s%s\n", replyPrefix, b); err != nil {
			return err
		}
	}
	return sc.Err()
}

func serveOne(ctx context.Context, req TaskRequest, run TaskRunner, errorLine func(io.Writer, error)) TaskReply {
	reply := TaskReply{Phase: req.Phase, Index: req.Index}
	resetPeakRSS() // the task's marker records its own peak, not the process's
	log, err := os.OpenFile(req.LogFile, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		reply.Error = fmt.Sprintf("task log: %v", err)
		return reply
	}
	defer log.Close()
	reply.Ran, err = run(ctx, req, log)
	if err != nil {
		errorLine(log, err)
		reply.Error = err.Error()
	}
	return reply
}
