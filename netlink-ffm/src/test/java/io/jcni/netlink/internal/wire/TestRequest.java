package io.jcni.netlink.internal.wire;

import java.util.function.Consumer;

/** A {@link Request} for tests: a type, flags, a fixed subject and a body written by a lambda. */
final class TestRequest extends Request {
    private final String subject;
    private final Consumer<MessageWriter> body;

    private TestRequest(int type, int flags, String subject, Consumer<MessageWriter> body) {
        super(type, flags);
        this.subject = subject;
        this.body = body;
    }

    static TestRequest req(int type, int flags, String subject, Consumer<MessageWriter> body) {
        return new TestRequest(type, flags, subject, body);
    }

    static TestRequest req(int type, String subject, Consumer<MessageWriter> body) {
        return new TestRequest(type, 0, subject, body);
    }

    @Override
    public void encode(MessageWriter w) {
        body.accept(w);
    }

    @Override
    protected String subject() {
        return subject;
    }
}
