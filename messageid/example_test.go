package messageid_test

import (
	"fmt"

	"github.com/pulsargo/sdk/messageid"
)

func Example() {
	first := messageid.New(7, 10, -1, -1, 0)
	last := messageid.New(7, 13, -1, -1, 0)
	id := messageid.NewChunk(first, last)

	back, err := messageid.Deserialize(id.Serialize())
	if err != nil {
		panic(err)
	}
	fmt.Println(back)
	fmt.Println("seek starts at", messageid.FirstChunk(back))
	// Output:
	// 7:10:-1;7:13:-1
	// seek starts at 7:10:-1
}

func ExampleParse() {
	id, err := messageid.Parse("3:42:0:5")
	if err != nil {
		panic(err)
	}
	fmt.Println(id.LedgerID(), id.EntryID(), id.PartitionIdx(), id.BatchIdx())
	// Output: 3 42 0 5
}
