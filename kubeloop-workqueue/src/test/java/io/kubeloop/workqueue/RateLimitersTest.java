package io.kubeloop.workqueue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import io.kubeloop.clock.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The rate limiters of {@link RateLimiters}: exact delays, per-item tracking, composition, validation. */
class RateLimitersTest {

    private static List<Duration> whenTimes(RateLimiter<String> limiter, String item, int n) {
        List<Duration> delays = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            delays.add(limiter.when(item));
        }
        return delays;
    }

    private static List<Duration> millis(long... ms) {
        List<Duration> out = new ArrayList<>();
        for (long m : ms) {
            out.add(Duration.ofMillis(m));
        }
        return out;
    }

    // ---- exponential

    @Test
    void exponentialFailureDoublesFromTheBaseUntilTheCapIsReachedOnThe19thFailure() {
        RateLimiter<String> limiter = RateLimiters.exponentialFailure(Duration.ofMillis(5), Duration.ofSeconds(1000));
        List<Duration> expected = millis(
                5, 10, 20, 40, 80, 160, 320, 640, 1_280, 2_560, 5_120, 10_240, 20_480, 40_960, 81_920, 163_840, 327_680,
                655_360, 1_000_000, 1_000_000, 1_000_000, 1_000_000);
        assertThat(whenTimes(limiter, "a", expected.size())).containsExactlyElementsOf(expected);
        assertThat(limiter.numRequeues("a")).isEqualTo(expected.size());
    }

    @Test
    void exponentialFailureNeverOverflowsAtVeryHighFailureCounts() {
        RateLimiter<String> limiter = RateLimiters.exponentialFailure(Duration.ofMillis(5), Duration.ofSeconds(1000));
        Duration last = null;
        for (int i = 0; i < 10_000; i++) {
            last = limiter.when("a");
            assertThat(last).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(1000));
        }
        assertThat(last).isEqualTo(Duration.ofSeconds(1000));
        assertThat(limiter.numRequeues("a")).isEqualTo(10_000);
    }

    @Test
    void exponentialFailureWithAHugeCapStaysPositiveAndNonDecreasingPastTheRangeOfALong() {
        Duration hugeCap = Duration.ofSeconds(Long.MAX_VALUE);
        RateLimiter<String> limiter = RateLimiters.exponentialFailure(Duration.ofNanos(1), hugeCap);
        Duration previous = Duration.ZERO;
        for (int i = 0; i < 200; i++) {
            Duration d = limiter.when("a");
            assertThat(d).as("failure %d", i + 1).isPositive().isGreaterThanOrEqualTo(previous);
            previous = d;
        }
        assertThat(previous).isEqualTo(hugeCap);
    }

    @Test
    void exponentialFailureWithTheBaseEqualToTheCapAlwaysWaitsTheCap() {
        RateLimiter<String> limiter = RateLimiters.exponentialFailure(Duration.ofSeconds(3), Duration.ofSeconds(3));
        assertThat(whenTimes(limiter, "a", 4)).containsOnly(Duration.ofSeconds(3));
    }

    @Test
    void exponentialFailureTracksEachItemIndependently() {
        RateLimiter<String> limiter = RateLimiters.exponentialFailure(Duration.ofMillis(5), Duration.ofSeconds(1000));
        assertThat(whenTimes(limiter, "a", 3)).containsExactlyElementsOf(millis(5, 10, 20));
        assertThat(limiter.when("b")).isEqualTo(Duration.ofMillis(5));
        assertThat(limiter.when("a")).isEqualTo(Duration.ofMillis(40));
        assertThat(limiter.numRequeues("a")).isEqualTo(4);
        assertThat(limiter.numRequeues("b")).isEqualTo(1);
        assertThat(limiter.numRequeues("never-failed")).isZero();
    }

    @Test
    void exponentialFailureForgetRestartsTheItemFromTheBaseWithoutTouchingOthers() {
        RateLimiter<String> limiter = RateLimiters.exponentialFailure(Duration.ofMillis(5), Duration.ofSeconds(1000));
        whenTimes(limiter, "a", 5);
        whenTimes(limiter, "b", 2);
        limiter.forget("a");
        assertThat(limiter.numRequeues("a")).isZero();
        assertThat(limiter.when("a")).isEqualTo(Duration.ofMillis(5));
        assertThat(limiter.numRequeues("b")).isEqualTo(2);
        assertThat(limiter.when("b")).isEqualTo(Duration.ofMillis(20));
        limiter.forget("never-failed"); // harmless
    }

    @Test
    void defaultItemBasedRateLimiterGoesFrom1MsTo1000s() {
        RateLimiter<String> limiter = RateLimiters.defaultItemBasedRateLimiter();
        List<Duration> delays = whenTimes(limiter, "a", 22);
        assertThat(delays.subList(0, 5)).containsExactlyElementsOf(millis(1, 2, 4, 8, 16));
        assertThat(delays.get(19)).as("20th failure").isEqualTo(Duration.ofMillis(524_288));
        assertThat(delays.get(20)).as("21st failure").isEqualTo(Duration.ofSeconds(1000));
        assertThat(delays.get(21)).isEqualTo(Duration.ofSeconds(1000));
    }

    @Test
    void theDocumentedDefaultsAreClientGos() {
        assertThat(RateLimiters.DEFAULT_CONTROLLER_BASE_DELAY).isEqualTo(Duration.ofMillis(5));
        assertThat(RateLimiters.DEFAULT_CONTROLLER_MAX_DELAY).isEqualTo(Duration.ofSeconds(1000));
        assertThat(RateLimiters.DEFAULT_CONTROLLER_QPS).isEqualTo(10.0);
        assertThat(RateLimiters.DEFAULT_CONTROLLER_BURST).isEqualTo(100);
        assertThat(RateLimiters.DEFAULT_ITEM_BASE_DELAY).isEqualTo(Duration.ofMillis(1));
        assertThat(RateLimiters.DEFAULT_ITEM_MAX_DELAY).isEqualTo(Duration.ofSeconds(1000));
    }

    // ---- fast/slow

    static Stream<Arguments> fastSlowCases() {
        return Stream.of(
                arguments(3, millis(5, 5, 5, 10_000, 10_000)),
                arguments(1, millis(5, 10_000, 10_000)),
                arguments(0, millis(10_000, 10_000)));
    }

    @ParameterizedTest(name = "maxFastAttempts {0}")
    @MethodSource("fastSlowCases")
    void fastSlowWaitsFastUpToMaxFastAttemptsAndSlowAfter(int maxFast, List<Duration> expected) {
        RateLimiter<String> limiter = RateLimiters.fastSlow(Duration.ofMillis(5), Duration.ofSeconds(10), maxFast);
        assertThat(whenTimes(limiter, "a", expected.size())).containsExactlyElementsOf(expected);
        assertThat(limiter.numRequeues("a")).isEqualTo(expected.size());
    }

    @Test
    void fastSlowTracksItemsIndependentlyAndForgetResets() {
        RateLimiter<String> limiter = RateLimiters.fastSlow(Duration.ofMillis(5), Duration.ofSeconds(10), 2);
        whenTimes(limiter, "a", 3);
        assertThat(limiter.when("b")).isEqualTo(Duration.ofMillis(5));
        assertThat(limiter.when("a")).isEqualTo(Duration.ofSeconds(10));
        limiter.forget("a");
        assertThat(limiter.numRequeues("a")).isZero();
        assertThat(whenTimes(limiter, "a", 3)).containsExactlyElementsOf(millis(5, 5, 10_000));
        assertThat(limiter.numRequeues("b")).isEqualTo(1);
    }

    // ---- token bucket

    @Test
    void bucketGivesTheBurstForFreeThenOneTokenPerIntervalOnAFakeClock() {
        FakeClock clock = new FakeClock();
        RateLimiter<String> limiter = RateLimiters.bucket(10, 100, clock);
        for (int i = 0; i < 100; i++) {
            assertThat(limiter.when("item-" + i)).as("call %d", i + 1).isZero();
        }
        assertThat(whenTimes(limiter, "x", 10))
                .containsExactlyElementsOf(millis(100, 200, 300, 400, 500, 600, 700, 800, 900, 1000));
        assertThat(limiter.numRequeues("x")).isZero();
    }

    @Test
    void bucketRefillsAsTheClockMoves() {
        FakeClock clock = new FakeClock();
        RateLimiter<String> limiter = RateLimiters.bucket(10, 100, clock);
        whenTimes(limiter, "a", 105); // 5 tokens in debt
        clock.step(Duration.ofSeconds(1)); // +10 tokens: 5 available
        assertThat(whenTimes(limiter, "a", 7)).containsExactlyElementsOf(millis(0, 0, 0, 0, 0, 100, 200));
        clock.step(Duration.ofMillis(50)); // half a token
        assertThat(limiter.when("a")).isEqualTo(Duration.ofMillis(250));
    }

    @Test
    void bucketNeverHoldsMoreThanTheBurstHoweverLongItWaits() {
        FakeClock clock = new FakeClock();
        RateLimiter<String> limiter = RateLimiters.bucket(10, 100, clock);
        clock.step(Duration.ofHours(10));
        for (int i = 0; i < 100; i++) {
            assertThat(limiter.when("a")).isZero();
        }
        assertThat(limiter.when("a")).isEqualTo(Duration.ofMillis(100));
    }

    @Test
    void bucketWithAFractionalIntervalTruncatesToWholeNanoseconds() {
        FakeClock clock = new FakeClock();
        RateLimiter<String> limiter = RateLimiters.bucket(3, 1, clock);
        assertThat(limiter.when("a")).isZero();
        assertThat(limiter.when("a")).isEqualTo(Duration.ofNanos(333_333_333));
        assertThat(limiter.when("a")).isEqualTo(Duration.ofNanos(666_666_666));
    }

    @Test
    void bucketIgnoresForgetAndNeverCountsRequeues() {
        FakeClock clock = new FakeClock();
        RateLimiter<String> limiter = RateLimiters.bucket(10, 1, clock);
        assertThat(limiter.when("a")).isZero();
        assertThat(limiter.when("a")).isEqualTo(Duration.ofMillis(100));
        limiter.forget("a");
        assertThat(limiter.when("a")).as("forget does not give tokens back").isEqualTo(Duration.ofMillis(200));
        assertThat(limiter.numRequeues("a")).isZero();
    }

    // ---- maxOf

    /** A limiter that answers a fixed sequence and records what it was asked. */
    private static final class Scripted implements RateLimiter<String> {
        private final List<Duration> answers;
        private final int requeues;
        final List<String> whenCalls = new ArrayList<>();
        final List<String> forgotten = new ArrayList<>();

        Scripted(int requeues, Duration... answers) {
            this.requeues = requeues;
            this.answers = List.of(answers);
        }

        @Override
        public Duration when(String item) {
            whenCalls.add(item);
            return answers.get((whenCalls.size() - 1) % answers.size());
        }

        @Override
        public void forget(String item) {
            forgotten.add(item);
        }

        @Override
        public int numRequeues(String item) {
            return requeues;
        }
    }

    @Test
    void maxOfAsksEveryLimiterAndWaitsTheLongestAnswer() {
        Scripted a = new Scripted(1, Duration.ofSeconds(1), Duration.ofSeconds(5));
        Scripted b = new Scripted(7, Duration.ofSeconds(3), Duration.ofSeconds(2));
        Scripted c = new Scripted(2, Duration.ZERO);
        RateLimiter<String> limiter = RateLimiters.maxOf(a, b, c);

        assertThat(limiter.when("x")).isEqualTo(Duration.ofSeconds(3));
        assertThat(limiter.when("x")).isEqualTo(Duration.ofSeconds(5));
        assertThat(a.whenCalls).containsExactly("x", "x");
        assertThat(b.whenCalls).containsExactly("x", "x");
        assertThat(c.whenCalls).containsExactly("x", "x");
        assertThat(limiter.numRequeues("x")).isEqualTo(7);

        limiter.forget("x");
        assertThat(a.forgotten).containsExactly("x");
        assertThat(b.forgotten).containsExactly("x");
        assertThat(c.forgotten).containsExactly("x");
    }

    @Test
    void maxOfASingleLimiterIsThatLimiter() {
        RateLimiter<String> limiter =
                RateLimiters.maxOf(RateLimiters.exponentialFailure(Duration.ofMillis(5), Duration.ofSeconds(1000)));
        assertThat(whenTimes(limiter, "a", 3)).containsExactlyElementsOf(millis(5, 10, 20));
        assertThat(limiter.numRequeues("a")).isEqualTo(3);
    }

    @Test
    void maxOfACollectionIsTheSameAsVarargsAndCopiesTheCollection() {
        Scripted a = new Scripted(1, Duration.ofSeconds(1), Duration.ofSeconds(5));
        Scripted b = new Scripted(7, Duration.ofSeconds(3), Duration.ofSeconds(2));
        List<RateLimiter<String>> limiters = new ArrayList<>(List.of(a, b));
        RateLimiter<String> limiter = RateLimiters.maxOf(limiters);
        limiters.add(new Scripted(0, Duration.ofHours(1))); // too late: the limiter holds a copy

        assertThat(limiter.when("x")).isEqualTo(Duration.ofSeconds(3));
        assertThat(limiter.when("x")).isEqualTo(Duration.ofSeconds(5));
        assertThat(a.whenCalls).containsExactly("x", "x");
        assertThat(b.whenCalls).containsExactly("x", "x");
        assertThat(limiter.numRequeues("x")).isEqualTo(7);
        limiter.forget("x");
        assertThat(a.forgotten).containsExactly("x");
        assertThat(b.forgotten).containsExactly("x");
    }

    @Test
    void maxOfABadCollectionSaysWhatIsWrong() {
        assertThatThrownBy(() -> RateLimiters.maxOf(List.<RateLimiter<String>>of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least one");
        assertThatThrownBy(() ->
                        RateLimiters.maxOf(Arrays.asList(RateLimiters.<String>defaultItemBasedRateLimiter(), null)))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("maxOf: rate limiter 1 is null");
        assertThatThrownBy(() -> RateLimiters.maxOf((java.util.Collection<RateLimiter<String>>) null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("limiters");
    }

    // ---- withMaxWait

    @Test
    void withMaxWaitCapsEveryDelayAndDelegatesTracking() {
        RateLimiter<String> limiter = RateLimiters.withMaxWait(
                RateLimiters.exponentialFailure(Duration.ofSeconds(1), Duration.ofHours(1)), Duration.ofSeconds(5));
        assertThat(whenTimes(limiter, "a", 6))
                .containsExactly(
                        Duration.ofSeconds(1),
                        Duration.ofSeconds(2),
                        Duration.ofSeconds(4),
                        Duration.ofSeconds(5),
                        Duration.ofSeconds(5),
                        Duration.ofSeconds(5));
        assertThat(limiter.numRequeues("a")).isEqualTo(6);
        limiter.forget("a");
        assertThat(limiter.numRequeues("a")).isZero();
        assertThat(limiter.when("a")).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void withMaxWaitOfZeroAlwaysAnswersZero() {
        RateLimiter<String> limiter = RateLimiters.withMaxWait(
                RateLimiters.exponentialFailure(Duration.ofSeconds(1), Duration.ofHours(1)), Duration.ZERO);
        assertThat(whenTimes(limiter, "a", 3)).containsOnly(Duration.ZERO);
    }

    // ---- default controller limiter

    @Test
    void defaultControllerRateLimiterIsTheMaxOfPerItemExponentialAndAnOverallBucket() {
        FakeClock clock = new FakeClock();
        RateLimiter<String> limiter = RateLimiters.defaultControllerRateLimiter(clock);
        // The first 100 failures fit in the bucket's burst: the per-item backoff decides.
        assertThat(whenTimes(limiter, "a", 18))
                .containsExactlyElementsOf(millis(
                        5, 10, 20, 40, 80, 160, 320, 640, 1_280, 2_560, 5_120, 10_240, 20_480, 40_960, 81_920, 163_840,
                        327_680, 655_360));
        for (int i = 0; i < 82; i++) {
            assertThat(limiter.when("item-" + i)).isEqualTo(Duration.ofMillis(5));
        }
        // The bucket is empty now: it decides for items whose own backoff is shorter.
        assertThat(limiter.when("b")).isEqualTo(Duration.ofMillis(100));
        assertThat(limiter.when("b")).isEqualTo(Duration.ofMillis(200));
        assertThat(limiter.when("a")).as("19th failure of a").isEqualTo(Duration.ofSeconds(1000));
        assertThat(limiter.numRequeues("a")).isEqualTo(19);
        assertThat(limiter.numRequeues("b")).isEqualTo(2);

        clock.step(Duration.ofSeconds(1));
        limiter.forget("a");
        assertThat(limiter.numRequeues("a")).isZero();
        assertThat(limiter.when("a")).as("3 tokens in debt, refilled by 10").isEqualTo(Duration.ofMillis(5));
    }

    // ---- validation

    static Stream<Arguments> invalidArguments() {
        return Stream.of(
                arguments(
                        "exponential base zero",
                        (Supplier<?>) () -> RateLimiters.exponentialFailure(Duration.ZERO, Duration.ofSeconds(1)),
                        "PT0S"),
                arguments(
                        "exponential base negative",
                        (Supplier<?>)
                                () -> RateLimiters.exponentialFailure(Duration.ofMillis(-1), Duration.ofSeconds(1)),
                        "PT-0.001S"),
                arguments(
                        "exponential max below base",
                        (Supplier<?>)
                                () -> RateLimiters.exponentialFailure(Duration.ofSeconds(2), Duration.ofSeconds(1)),
                        "PT1S"),
                arguments(
                        "exponential max negative",
                        (Supplier<?>)
                                () -> RateLimiters.exponentialFailure(Duration.ofSeconds(2), Duration.ofSeconds(-7)),
                        "PT-7S"),
                arguments("bucket qps zero", (Supplier<?>) () -> RateLimiters.bucket(0, 100), "0.0"),
                arguments("bucket qps negative", (Supplier<?>) () -> RateLimiters.bucket(-2.5, 100), "-2.5"),
                arguments("bucket qps NaN", (Supplier<?>) () -> RateLimiters.bucket(Double.NaN, 100), "NaN"),
                arguments(
                        "bucket qps infinite",
                        (Supplier<?>) () -> RateLimiters.bucket(Double.POSITIVE_INFINITY, 100),
                        "Infinity"),
                arguments("bucket burst zero", (Supplier<?>) () -> RateLimiters.bucket(10, 0), "0"),
                arguments("bucket burst negative", (Supplier<?>) () -> RateLimiters.bucket(10, -3), "-3"),
                arguments(
                        "fastSlow fast negative",
                        (Supplier<?>) () -> RateLimiters.fastSlow(Duration.ofSeconds(-1), Duration.ofSeconds(1), 1),
                        "PT-1S"),
                arguments(
                        "fastSlow slow negative",
                        (Supplier<?>) () -> RateLimiters.fastSlow(Duration.ofSeconds(1), Duration.ofSeconds(-2), 1),
                        "PT-2S"),
                arguments(
                        "fastSlow maxFastAttempts negative",
                        (Supplier<?>) () -> RateLimiters.fastSlow(Duration.ofSeconds(1), Duration.ofSeconds(2), -4),
                        "-4"),
                arguments(
                        "withMaxWait negative",
                        (Supplier<?>) () -> RateLimiters.withMaxWait(
                                RateLimiters.defaultItemBasedRateLimiter(), Duration.ofSeconds(-9)),
                        "PT-9S"),
                arguments("maxOf of nothing", (Supplier<?>) RateLimiters::maxOf, "at least one"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidArguments")
    void invalidArgumentsAreRejectedWithAMessageNamingTheBadValue(
            String description, Supplier<?> factory, String inMessage) {
        assertThatThrownBy(factory::get)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageFindingMatch("(?<![\\w.-])" + Pattern.quote(inMessage) + "(?![\\w.])");
    }

    @Test
    void nullArgumentsAreRejectedWithNullPointerException() {
        assertThatThrownBy(() -> RateLimiters.exponentialFailure(null, Duration.ofSeconds(1)))
                .isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> RateLimiters.exponentialFailure(Duration.ofSeconds(1), null))
                .isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> RateLimiters.bucket(10, 100, null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> RateLimiters.withMaxWait(null, Duration.ofSeconds(1)))
                .isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> RateLimiters.maxOf(RateLimiters.<String>defaultItemBasedRateLimiter(), null))
                .isInstanceOf(NullPointerException.class);
    }
}
