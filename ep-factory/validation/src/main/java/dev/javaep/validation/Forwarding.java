package dev.javaep.validation;

/**
 * The stubs' Java side, one method per arity (arguments after {@code this}, all widened to long): find the proxy,
 * check, call the vendor's function with the vendor's {@code this}, check what came back. Nothing here allocates
 * unless a check needs it (an allocation's entry, a compute state's, a violation's report).
 */
final class Forwarding {
    private Forwarding() {}

    static long forward0(Site s, long self) throws Throwable {
        Proxy p = s.enter(self, 0);
        long start = System.nanoTime();
        Breadcrumbs.Trail trail = s.crumbIn();
        long r;
        try {
            r = (long) s.downcall().invokeExact(p.function(s.ordinal()), p.vendor);
        } finally {
            s.crumbOut(trail);
        }
        return s.exit(p, start, r, 0, 0, 0, 0, 0, 0);
    }

    static long forward1(Site s, long self, long a1) throws Throwable {
        Proxy p = s.enter(self, a1);
        long v1 = s.before(p, a1, 0, 0, 0, 0, 0);
        long start = System.nanoTime();
        Breadcrumbs.Trail trail = s.crumbIn();
        long r;
        try {
            r = (long) s.downcall().invokeExact(p.function(s.ordinal()), p.vendor, v1);
        } finally {
            s.crumbOut(trail);
        }
        return s.exit(p, start, r, a1, 0, 0, 0, 0, 0);
    }

    static long forward2(Site s, long self, long a1, long a2) throws Throwable {
        Proxy p = s.enter(self, a1);
        long v1 = s.before(p, a1, a2, 0, 0, 0, 0);
        long start = System.nanoTime();
        Breadcrumbs.Trail trail = s.crumbIn();
        long r;
        try {
            r = (long) s.downcall().invokeExact(p.function(s.ordinal()), p.vendor, v1, a2);
        } finally {
            s.crumbOut(trail);
        }
        return s.exit(p, start, r, a1, a2, 0, 0, 0, 0);
    }

    static long forward3(Site s, long self, long a1, long a2, long a3) throws Throwable {
        Proxy p = s.enter(self, a1);
        long v1 = s.before(p, a1, a2, a3, 0, 0, 0);
        long start = System.nanoTime();
        Breadcrumbs.Trail trail = s.crumbIn();
        long r;
        try {
            r = (long) s.downcall().invokeExact(p.function(s.ordinal()), p.vendor, v1, a2, a3);
        } finally {
            s.crumbOut(trail);
        }
        return s.exit(p, start, r, a1, a2, a3, 0, 0, 0);
    }

    static long forward4(Site s, long self, long a1, long a2, long a3, long a4) throws Throwable {
        Proxy p = s.enter(self, a1);
        long v1 = s.before(p, a1, a2, a3, a4, 0, 0);
        long start = System.nanoTime();
        Breadcrumbs.Trail trail = s.crumbIn();
        long r;
        try {
            r = (long) s.downcall().invokeExact(p.function(s.ordinal()), p.vendor, v1, a2, a3, a4);
        } finally {
            s.crumbOut(trail);
        }
        return s.exit(p, start, r, a1, a2, a3, a4, 0, 0);
    }

    static long forward5(Site s, long self, long a1, long a2, long a3, long a4, long a5) throws Throwable {
        Proxy p = s.enter(self, a1);
        long v1 = s.before(p, a1, a2, a3, a4, a5, 0);
        long start = System.nanoTime();
        Breadcrumbs.Trail trail = s.crumbIn();
        long r;
        try {
            r = (long) s.downcall().invokeExact(p.function(s.ordinal()), p.vendor, v1, a2, a3, a4, a5);
        } finally {
            s.crumbOut(trail);
        }
        return s.exit(p, start, r, a1, a2, a3, a4, a5, 0);
    }

    static long forward6(Site s, long self, long a1, long a2, long a3, long a4, long a5, long a6) throws Throwable {
        Proxy p = s.enter(self, a1);
        long v1 = s.before(p, a1, a2, a3, a4, a5, a6);
        long start = System.nanoTime();
        Breadcrumbs.Trail trail = s.crumbIn();
        long r;
        try {
            r = (long) s.downcall().invokeExact(p.function(s.ordinal()), p.vendor, v1, a2, a3, a4, a5, a6);
        } finally {
            s.crumbOut(trail);
        }
        return s.exit(p, start, r, a1, a2, a3, a4, a5, a6);
    }
}
