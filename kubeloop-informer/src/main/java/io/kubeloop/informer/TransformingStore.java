package io.kubeloop.informer;

import io.kubeloop.informer.reflector.ReflectorStore;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies the informer's transform to every object the reflector hands over, before the DeltaFIFO sees it (so
 * before anything is cached or delivered), as client-go's DeltaFIFO transformer does. A transform failure on a
 * watch event drops that event with an ERROR log naming the object (the resourceVersion still advances, as in
 * client-go); on a list it fails the whole {@code replace}, so the reflector backs off and lists again.
 *
 * @param <T> the object type
 */
final class TransformingStore<T> implements ReflectorStore<T> {

    private static final Logger log = LoggerFactory.getLogger(SharedIndexInformer.class);

    private final String informerName;
    private final ReflectorStore<T> delegate;
    private final UnaryOperator<T> transform;

    TransformingStore(String informerName, ReflectorStore<T> delegate, UnaryOperator<T> transform) {
        this.informerName = informerName;
        this.delegate = delegate;
        this.transform = transform;
    }

    @Override
    public void add(T object) {
        T t = transformEvent(object, "ADDED");
        if (t != null) {
            delegate.add(t);
        }
    }

    @Override
    public void update(T object) {
        T t = transformEvent(object, "MODIFIED");
        if (t != null) {
            delegate.update(t);
        }
    }

    @Override
    public void delete(T object) {
        T t = transformEvent(object, "DELETED");
        if (t != null) {
            delegate.delete(t);
        }
    }

    @Override
    public void replace(Collection<? extends T> objects, String resourceVersion) {
        List<T> transformed = new ArrayList<>(objects.size());
        for (T o : objects) {
            transformed.add(apply(o));
        }
        delegate.replace(transformed, resourceVersion);
    }

    @Override
    public void resync() {
        delegate.resync();
    }

    private T transformEvent(T object, String eventType) {
        try {
            return apply(object);
        } catch (RuntimeException e) {
            log.error("informer {}: the transform failed on the {} event of {}; the event is dropped and the cache "
                    + "may miss this change until the next relist", informerName, eventType,
                    ProcessorListener.describe(object), e);
            return null;
        }
    }

    private T apply(T object) {
        T t;
        try {
            t = transform.apply(object);
        } catch (RuntimeException e) {
            throw new IllegalStateException("informer " + informerName + ": the transform failed on "
                    + ProcessorListener.describe(object) + ": " + e.getMessage(), e);
        }
        if (t == null) {
            throw new IllegalStateException("informer " + informerName + ": the transform returned null for "
                    + ProcessorListener.describe(object));
        }
        return t;
    }
}
