import Foundation
import RowStore
import Testing

@Suite struct DatabaseURLTests {
    @Test(arguments: [
        (
            "postgresql://loader:s3cret@db.example.com:5432/postgres?sslmode=require",
            "postgresql://loader:***@db.example.com:5432/postgres?sslmode=require"
        ),
        (
            "postgres://postgres.abcdefgh:p%40ss%2Fw0rd@aws-0-eu-central-1.pooler.supabase.com:6543/postgres",
            "postgres://postgres.abcdefgh:***@aws-0-eu-central-1.pooler.supabase.com:6543/postgres"
        ),
        (
            "postgresql://loader@db.example.com/postgres?password=s3cret&sslmode=require",
            "postgresql://loader@db.example.com/postgres?password=***&sslmode=require"
        ),
        ("postgresql:///postgres?host=/tmp/yui&user=postgres", "postgresql:///postgres?host=/tmp/yui&user=postgres"),
        (
            "host=db.example.com user=loader password=s3cret dbname=postgres",
            "host=db.example.com user=loader password=*** dbname=postgres"
        ),
        (
            "host=db user=loader password = 'it\\'s s3cret' dbname=postgres",
            "host=db user=loader password = *** dbname=postgres"
        ),
        // An escaped space is part of a bare value (libpq's conninfo): the whole value goes.
        ("host=db password=s3cret\\ w0rd dbname=postgres", "host=db password=*** dbname=postgres"),
        ("host=db PASSWORD=s3\\'cret\\\\w0rd", "host=db PASSWORD=***"),
        ("postgresql:/loader:s3cret@db/postgres", "<the --db value>"),
        ("yui_perf", "yui_perf"),
    ])
    func theRedactedFormHidesThePasswordAndKeepsTheRest(given: String, redacted: String) {
        let url = DatabaseURL(given)
        #expect(url.redacted == redacted)
        #expect(url.connectionString == given)
        #expect(!url.redacted.contains("s3cret") && !url.redacted.contains("w0rd"))
    }

    /// A password with an unencoded `@`: libpq takes the part after it for the host and echoes it
    /// in its messages; none of the password may show, in the redacted form or a scrubbed message.
    @Test func aPasswordWithAnUnencodedAtSignIsHiddenWhole() {
        let url = DatabaseURL("postgresql://u:Wr@ngPW99@db.example.com/db")
        #expect(url.redacted == "postgresql://u:***@db.example.com/db")
        let message = url.scrub(#"could not translate host name "ngPW99@db.example.com" to address"#)
        #expect(!message.contains("ngPW99"))
        #expect(!url.redacted.contains("Wr") && !url.redacted.contains("ngPW99"))
    }

    @Test func scrubRemovesEverySpellingOfThePasswordFromAMessage() {
        let url = DatabaseURL("postgresql://loader:p%40ss%2Fw0rd@db.example.com/postgres")
        let message = #"could not parse "postgresql://loader:p%40ss%2Fw0rd@db" (password p@ss/w0rd)"#
        #expect(url.scrub(message) == #"could not parse "postgresql://loader:***@db" (password ***)"#)

        let mistyped = DatabaseURL("postgresql:/loader:s3cret@db/postgres")
        #expect(
            mistyped.scrub(#"database "postgresql:/loader:s3cret@db/postgres" does not exist"#)
                == #"database "***" does not exist"#)
    }
}
