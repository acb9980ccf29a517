package io.kubeloop.apiserver.internal.table;

/**
 * One {@code columnDefinitions} entry. {@code priority} 0 columns are always printed; priority 1 columns only
 * with {@code -o wide}. The server always sends every column, and every row has one cell per column.
 */
record Column(String name, String type, String format, String description, int priority) {

    /** The Name column: type string, format name. */
    static final Column NAME = new Column("Name", "string", "name", Descriptions.NAME, 0);

    /** The Age column (a string such as {@code 5m}, not a date). */
    static final Column AGE = new Column("Age", "string", "", Descriptions.CREATION_TIMESTAMP, 0);

    static Column string(String name, String description) {
        return new Column(name, "string", "", description, 0);
    }

    static Column integer(String name, String description) {
        return new Column(name, "integer", "", description, 0);
    }

    /** A string column shown only with {@code -o wide}. */
    static Column wide(String name, String description) {
        return new Column(name, "string", "", description, 1);
    }

    static Column containers() {
        return wide("Containers", "Names of each container in the template.");
    }

    static Column images() {
        return wide("Images", "Images referenced by each container in the template.");
    }
}
