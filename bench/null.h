/*
 * null.h: the fixed response of the floors, bench/null.c (CGI) and
 * bench/null-fcgi.c (FastCGI): what a program that does nothing answers.
 */
static const char resp[] =
    "Status: 200 OK\r\n"
    "Content-Type: application/json; charset=utf-8\r\n"
    "Content-Length: 16\r\n"
    "Cache-Control: no-store\r\n"
    "\r\n"
    "{\"success\":true}";
