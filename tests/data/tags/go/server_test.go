package server

import (
	"context"
	"testing"
)

func TestRunStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := New(":0").Run(ctx); err != nil {
		t.Fatal(err)
	}
}

func BenchmarkMap(b *testing.B) {
	for i := 0; i < b.N; i++ {
		Map([]int{1, 2, 3}, double)
	}
}

func double(x int) int { return x * 2 }
