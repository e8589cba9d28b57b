// SQLite's header, exposed to Swift as the CSQLite module (Debian's
// libsqlite3-dev): the merge's index under OUT/.thumbs/ (issue 23).
#include <sqlite3.h>
