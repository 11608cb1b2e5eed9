package conn

import (
	"log/slog"

	"github.com/pulsargo/sdk/internal/wire"
)

// MaxMessageSizeCap is the largest max_message_size the client takes from a
// broker's CONNECTED: 256 MiB, the largest message the client handles (a
// consumer's default limit on a message's uncompressed size, the chunk
// Assembler's default MaxMessageSize). The connection's frame limit is the
// announced size plus wire.FramePadding, so a broker that announces more
// (2 GB, say) cannot make the client accept frames that large; producers
// chunk or refuse messages above it. A real broker's maxMessageSize is
// 5 MiB by default and far below this.
const MaxMessageSizeCap = 256 << 20

// announcedMaxMessageSize is the max_message_size a CONNECTED announced,
// capped at MaxMessageSizeCap; wire.DefaultMaxMessageSize when it announced
// none (or a size <= 0).
func announcedMaxMessageSize(announced int32, log *slog.Logger) int {
	switch {
	case announced <= 0:
		return wire.DefaultMaxMessageSize
	case int64(announced) > MaxMessageSizeCap:
		log.Warn("broker announced a max_message_size above the client's maximum: capped",
			"announced", announced, "cap", MaxMessageSizeCap)
		return MaxMessageSizeCap
	}
	return int(announced)
}
