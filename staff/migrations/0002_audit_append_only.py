"""The audit log is append-only, whatever code or hand touches the table: PostgreSQL refuses UPDATE and
DELETE on it (TRUNCATE stays possible for the test runner; it is not something the application does)."""

from django.db import migrations

FORWARD = """
CREATE FUNCTION staff_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'audit log: % on % is not allowed, the log is append-only', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'restrict_violation';
END
$$;

CREATE TRIGGER staff_auditentry_append_only
    BEFORE UPDATE OR DELETE ON staff_auditentry
    FOR EACH ROW EXECUTE FUNCTION staff_audit_append_only();
"""

BACKWARD = """
DROP TRIGGER IF EXISTS staff_auditentry_append_only ON staff_auditentry;
DROP FUNCTION IF EXISTS staff_audit_append_only();
"""


class Migration(migrations.Migration):
    dependencies = [("staff", "0001_initial")]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
