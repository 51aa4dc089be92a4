"""The ledger's rules, enforced by PostgreSQL itself (whatever code or hand touches the tables):

- at commit, the entries of each transfer that received entries sum to zero and all use its currency
  (a deferred constraint trigger, so a transfer's legs can be inserted one by one);
- entries and transfers are never updated or deleted.
TRUNCATE stays possible (the test runner flushes tables with it); it is not something the application does."""

from django.db import migrations

FORWARD = """
CREATE FUNCTION cashier_transfer_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    total numeric;
    foreign_legs integer;
BEGIN
    SELECT COALESCE(SUM(amount), 0) INTO total FROM cashier_entry WHERE transfer_id = NEW.transfer_id;
    IF total <> 0 THEN
        RAISE EXCEPTION 'ledger: transfer % does not balance (its entries sum to %)', NEW.transfer_id, total
            USING ERRCODE = 'check_violation';
    END IF;
    SELECT COUNT(*) INTO foreign_legs
      FROM cashier_entry e
      JOIN cashier_account a ON a.id = e.account_id
      JOIN cashier_transfer t ON t.id = e.transfer_id
     WHERE e.transfer_id = NEW.transfer_id AND a.currency <> t.currency;
    IF foreign_legs > 0 THEN
        RAISE EXCEPTION 'ledger: transfer % mixes currencies', NEW.transfer_id USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END
$$;

CREATE CONSTRAINT TRIGGER cashier_entry_balanced
    AFTER INSERT ON cashier_entry
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION cashier_transfer_balanced();

CREATE FUNCTION cashier_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'ledger: % on % is not allowed, the ledger is append-only', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'restrict_violation';
END
$$;

CREATE TRIGGER cashier_entry_append_only
    BEFORE UPDATE OR DELETE ON cashier_entry
    FOR EACH ROW EXECUTE FUNCTION cashier_append_only();

CREATE TRIGGER cashier_transfer_append_only
    BEFORE UPDATE OR DELETE ON cashier_transfer
    FOR EACH ROW EXECUTE FUNCTION cashier_append_only();
"""

BACKWARD = """
DROP TRIGGER IF EXISTS cashier_transfer_append_only ON cashier_transfer;
DROP TRIGGER IF EXISTS cashier_entry_append_only ON cashier_entry;
DROP FUNCTION IF EXISTS cashier_append_only();
DROP TRIGGER IF EXISTS cashier_entry_balanced ON cashier_entry;
DROP FUNCTION IF EXISTS cashier_transfer_balanced();
"""


class Migration(migrations.Migration):
    dependencies = [("cashier", "0001_initial")]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
