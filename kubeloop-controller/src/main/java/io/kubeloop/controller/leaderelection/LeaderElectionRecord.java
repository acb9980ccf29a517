package io.kubeloop.controller.leaderelection;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseSpec;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;

/**
 * client-go's {@code resourcelock.LeaderElectionRecord}: the part of a Lease's spec that leader election reads and
 * writes. Equality is what client-go's comparison of the raw record decides: a candidate restarts its expiry count
 * ({@code observedTime}) only when the record differs from the one it saw last.
 *
 * @param holderIdentity "" when nobody holds the Lease (never created, or released)
 * @param acquireTime null when the Lease has none
 * @param renewTime null when the Lease has none
 */
record LeaderElectionRecord(
        String holderIdentity,
        int leaseDurationSeconds,
        Instant acquireTime,
        Instant renewTime,
        int leaderTransitions) {

    LeaderElectionRecord {
        holderIdentity = holderIdentity == null ? "" : holderIdentity;
        // A Lease keeps microseconds (metav1.MicroTime): compare what the server gives back.
        acquireTime = acquireTime == null ? null : acquireTime.truncatedTo(ChronoUnit.MICROS);
        renewTime = renewTime == null ? null : renewTime.truncatedTo(ChronoUnit.MICROS);
    }

    /** The record of {@code lease}; absent fields read as client-go reads them (empty holder, zeros). */
    static LeaderElectionRecord of(Lease lease) {
        LeaseSpec spec = lease.getSpec();
        if (spec == null) {
            return new LeaderElectionRecord("", 0, null, null, 0);
        }
        return new LeaderElectionRecord(
                spec.getHolderIdentity(),
                spec.getLeaseDurationSeconds() == null ? 0 : spec.getLeaseDurationSeconds(),
                spec.getAcquireTime() == null ? null : spec.getAcquireTime().toInstant(),
                spec.getRenewTime() == null ? null : spec.getRenewTime().toInstant(),
                spec.getLeaseTransitions() == null ? 0 : spec.getLeaseTransitions());
    }

    /** This record as a Lease spec (client-go's {@code LeaderElectionRecordToLeaseSpec}). */
    LeaseSpec toSpec() {
        LeaseSpec spec = new LeaseSpec();
        spec.setHolderIdentity(holderIdentity);
        spec.setLeaseDurationSeconds(leaseDurationSeconds);
        spec.setAcquireTime(utc(acquireTime));
        spec.setRenewTime(utc(renewTime));
        spec.setLeaseTransitions(leaderTransitions);
        return spec;
    }

    LeaderElectionRecord withAcquireTimeAndTransitions(Instant acquireTime, int leaderTransitions) {
        return new LeaderElectionRecord(
                holderIdentity, leaseDurationSeconds, acquireTime, renewTime, leaderTransitions);
    }

    private static ZonedDateTime utc(Instant instant) {
        return instant == null ? null : ZonedDateTime.ofInstant(instant, ZoneOffset.UTC);
    }
}
