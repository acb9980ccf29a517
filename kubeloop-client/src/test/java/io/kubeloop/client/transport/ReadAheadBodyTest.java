package io.kubeloop.client.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class ReadAheadBodyTest {

    /** Records what the body asks of the connection. */
    private static final class Connection implements Flow.Subscription {
        final AtomicLong requested = new AtomicLong();
        final AtomicBoolean cancelled = new AtomicBoolean();

        @Override
        public void request(long n) {
            requested.addAndGet(n);
        }

        @Override
        public void cancel() {
            cancelled.set(true);
        }
    }

    private static List<ByteBuffer> chunk(String... buffers) {
        return java.util.Arrays.stream(buffers)
                .map(b -> ByteBuffer.wrap(b.getBytes(StandardCharsets.UTF_8)))
                .toList();
    }

    private static InputStream body(ReadAheadBody subscriber) {
        return subscriber.getBody().toCompletableFuture().join();
    }

    @Test
    void asksForChunksAheadAndOneMoreForEachChunkTheReaderTakes() throws Exception {
        ReadAheadBody body = new ReadAheadBody();
        Connection connection = new Connection();
        body.onSubscribe(connection);
        assertThat(connection.requested).hasValue(ReadAheadBody.AHEAD);
        for (int i = 0; i < ReadAheadBody.AHEAD; i++) {
            body.onNext(chunk("ab"));
        }
        assertThat(connection.requested).hasValue(ReadAheadBody.AHEAD); // nothing taken: nothing more asked
        InputStream in = body(body);
        assertThat(in.read()).isEqualTo('a');
        assertThat(connection.requested).hasValue(ReadAheadBody.AHEAD + 1);
        assertThat(in.read()).isEqualTo('b');
        assertThat(in.read()).isEqualTo('a');
        assertThat(connection.requested).hasValue(ReadAheadBody.AHEAD + 2);
    }

    @Test
    void readsEveryByteAcrossChunksAndEmptyBuffersThenTheEnd() throws Exception {
        ReadAheadBody body = new ReadAheadBody();
        body.onSubscribe(new Connection());
        body.onNext(chunk("{\"type\":", "", "\"ADDED\"}"));
        body.onNext(List.of());
        body.onNext(chunk("", "\n{\"x\":\"é\"}"));
        body.onComplete();
        InputStream in = body(body);
        byte[] first = new byte[3];
        assertThat(in.read(first, 0, 3)).isEqualTo(3);
        assertThat(new String(first, StandardCharsets.UTF_8)).isEqualTo("{\"t");
        assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("ype\":\"ADDED\"}\n{\"x\":\"é\"}");
        assertThat(in.read()).isEqualTo(-1);
        assertThat(in.read(new byte[4], 0, 4)).isEqualTo(-1);
        assertThat(in.read(new byte[4], 0, 0)).isZero();
    }

    @Test
    void aReadCopiesWhatHasArrivedAcrossChunksWithoutWaitingForMore() throws Exception {
        ReadAheadBody body = new ReadAheadBody();
        body.onSubscribe(new Connection());
        body.onNext(chunk("abc"));
        body.onNext(chunk("de"));
        InputStream in = body(body);
        byte[] into = new byte[16];
        assertThat(in.read(into, 0, 16)).isEqualTo(5); // not completed, yet it returns what there is
        assertThat(new String(into, 0, 5, StandardCharsets.UTF_8)).isEqualTo("abcde");
        assertThat(in.available()).isZero();
    }

    @Test
    void theConnectionsFailureComesAfterTheBytesReceivedBeforeIt() throws Exception {
        ReadAheadBody body = new ReadAheadBody();
        body.onSubscribe(new Connection());
        body.onNext(chunk("partial"));
        body.onError(new IOException("connection reset"));
        InputStream in = body(body);
        assertThat(new String(in.readNBytes(7), StandardCharsets.UTF_8)).isEqualTo("partial");
        assertThatThrownBy(in::read).isInstanceOf(IOException.class).hasMessageContaining("connection reset");
    }

    @Test
    void closeCancelsTheExchangeAndWakesABlockedReader() throws Exception {
        ReadAheadBody body = new ReadAheadBody();
        Connection connection = new Connection();
        body.onSubscribe(connection);
        InputStream in = body(body);
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread reader = Thread.ofPlatform().start(() -> {
            try {
                in.read();
            } catch (Throwable t) {
                thrown.set(t);
            }
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> reader.getState() == Thread.State.WAITING);
        in.close();
        reader.join(Duration.ofSeconds(10));
        assertThat(reader.isAlive()).isFalse();
        assertThat(thrown.get()).isInstanceOf(IOException.class).hasMessageContaining("closed");
        assertThat(connection.cancelled).isTrue();
        body.onNext(chunk("late")); // a chunk in flight when closed is dropped
        assertThatThrownBy(in::read).isInstanceOf(IOException.class);
    }

    @Test
    void anInterruptedReaderThrowsAndKeepsItsInterruptStatus() throws Exception {
        ReadAheadBody body = new ReadAheadBody();
        body.onSubscribe(new Connection());
        InputStream in = body(body);
        CompletableFuture<Throwable> outcome = new CompletableFuture<>();
        Thread reader = Thread.ofPlatform().start(() -> {
            try {
                in.read();
                outcome.complete(null);
            } catch (Throwable t) {
                outcome.complete(Thread.currentThread().isInterrupted() ? t : new AssertionError("status lost", t));
            }
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> reader.getState() == Thread.State.WAITING);
        reader.interrupt();
        assertThat(outcome.get(10, java.util.concurrent.TimeUnit.SECONDS)).isInstanceOf(InterruptedIOException.class);
    }

    @Test
    void aSecondSubscriptionIsCancelled() {
        ReadAheadBody body = new ReadAheadBody();
        body.onSubscribe(new Connection());
        Connection second = new Connection();
        body.onSubscribe(second);
        assertThat(second.cancelled).isTrue();
        assertThat(second.requested).hasValue(0);
    }
}
