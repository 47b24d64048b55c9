package io.rdmakv.systemtests.hardening.repair;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rdmakv.systemtests.LocalCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code kvctl damaged} lists each damaged slot of the node (where, the word, what is wrong, the key when
 * readable) and nothing once the keys were repaired by a PUT and a DELETE.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class KvCtlDamagedTest extends RepairFixture
{
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void listsTheDamagedKeysBeforeTheirRepairAndNothingAfter() throws IOException
    {
        assertEquals("no damaged slots\n", kvctl("damaged").out(), "a healthy node");

        final byte[] flipped = LocalCluster.bytes("flipped\u0001key");
        flipValueByte(flipped, LocalCluster.bytes("its value"));
        pointOutside(LocalCluster.bytes("pointed-away"), LocalCluster.bytes("v"));

        final String text = kvctl("damaged").out();
        assertTrue(text.contains(" bad_checksum key \"flipped\\x01key\"\n"), text);
        assertTrue(text.contains(" outside_data_area key (unreadable)\n"), text);
        assertTrue(text.endsWith("2 damaged slot(s)\n"), text);

        final JsonNode json = JSON.readTree(kvctl("--json", "damaged").out());
        assertEquals(2, json.get("total").asInt());
        assertEquals(0, json.get("more").asInt());
        final JsonNode bad = json.get("slots").get(0).get("damage").asText().equals("bad_checksum") ?
            json.get("slots").get(0) : json.get("slots").get(1);
        assertEquals(HexFormat.of().formatHex(flipped), bad.get("keyHex").asText());
        assertEquals(flipped.length, bad.get("keyLength").asInt());

        final String limited = kvctl("damaged", "--limit", "1").out();
        assertTrue(limited.endsWith("2 damaged slot(s), 1 more not listed (--limit)\n"), limited);

        writer.delete(flipped);
        writer.put(LocalCluster.bytes("pointed-away"), LocalCluster.bytes("again"));
        assertEquals("no damaged slots\n", kvctl("damaged").out());
        assertEquals(0, JSON.readTree(kvctl("--json", "damaged").out()).get("total").asInt());
    }
}
