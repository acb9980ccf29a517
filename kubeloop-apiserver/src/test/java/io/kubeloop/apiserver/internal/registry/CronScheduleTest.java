package io.kubeloop.apiserver.internal.registry;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The schedules robfig/cron's {@code ParseStandard} accepts, and its error text for those it refuses. */
class CronScheduleTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            */5 * * * *
            0 0 1 1 *
            0-59/15 0,12 1-31 jan-dec sun-sat
            30 2 ? * MON
            @hourly
            @every 1h30m
            TZ=UTC 0 * * * *
            5/10 * * * *
            """)
    void accepts(String schedule) {
        assertThat(CronSchedule.error(schedule)).isNull();
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', textBlock = """
            every minute     | expected exactly 5 fields, found 2: [every minute]
            * * * *          | expected exactly 5 fields, found 4: [* * * *]
            60 * * * *       | end of range (60) above maximum (59): 60
            * * 0 * *        | beginning of range (0) below minimum (1): 0
            5-1 * * * *      | beginning of range (5) beyond end of range (1): 5-1
            */0 * * * *      | step of range should be a positive number: */0
            1-2-3 * * * *    | too many hyphens: 1-2-3
            */2/3 * * * *    | too many slashes: */2/3
            x * * * *        | failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax
            * * * foo *      | failed to parse int from foo: strconv.Atoi: parsing "foo": invalid syntax
            @fortnightly     | unrecognized descriptor: @fortnightly
            """)
    void refusesWithRobfigsMessage(String schedule, String message) {
        assertThat(CronSchedule.error(schedule)).isEqualTo(message);
    }
}
