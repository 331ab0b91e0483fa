package tasks

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/io/jsonl"
)

// MessageType is the Arrow type of one message in Parquet output.
var MessageType = arrow.StructOf(
	arrow.Field{Name: "role", Type: arrow.BinaryTypes.String},
	arrow.Field{Name: "content", Type: arrow.BinaryTypes.String},
)

// ParquetSchema is the schema of `tasks convert --to parquet`: the turns
// as a list<struct<role, content>> column, and the members outside the
// source format's shape (an id, a source) as one JSON object per row, null
// when there are none.
var ParquetSchema = arrow.NewSchema([]arrow.Field{
	{Name: "messages", Type: arrow.ListOf(MessageType)},
	{Name: "extra", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

// messageBuilder builds record batches of ParquetSchema.
type messageBuilder struct {
	rb      *array.RecordBuilder
	list    *array.ListBuilder
	msg     *array.StructBuilder
	role    *array.StringBuilder
	content *array.StringBuilder
	extra   *array.StringBuilder
	buf     []byte
}

func newMessageBuilder(mem memory.Allocator) *messageBuilder {
	rb := array.NewRecordBuilder(mem, ParquetSchema)
	b := &messageBuilder{rb: rb, list: rb.Field(0).(*array.ListBuilder), extra: rb.Field(1).(*array.StringBuilder)}
	b.msg = b.list.ValueBuilder().(*array.StructBuilder)
	b.role = b.msg.FieldBuilder(0).(*array.StringBuilder)
	b.content = b.msg.FieldBuilder(1).(*array.StringBuilder)
	return b
}

// add appends one example as a row.
func (b *messageBuilder) add(turns []turn, d *jsonl.Doc, ex *Example) {
	b.list.Append(true)
	for _, t := range turns {
		b.msg.Append(true)
		b.role.Append(t.role.String())
		b.content.BinaryBuilder.Append(t.content)
	}
	b.buf = appendOtherMembers(append(b.buf[:0], '{'), d, ex, false)
	if len(b.buf) == 1 {
		b.extra.AppendNull()
	} else {
		b.extra.BinaryBuilder.Append(append(b.buf, '}'))
	}
}

func (b *messageBuilder) len() int { return b.list.Len() }

// batch returns the rows added since the last call; the caller releases it.
func (b *messageBuilder) batch() arrow.RecordBatch { return b.rb.NewRecordBatch() }

func (b *messageBuilder) release() { b.rb.Release() }
